package assess

import "strings"

// Apptainer (and Singularity, its former name, whose commands are the
// same) runs a container image as the user: `apptainer run|exec|shell|
// instance start [options] IMAGE [COMMAND…]`, its options before the image
// (it reads no option after it). The image is a local file or folder, or
// is pulled when the command starts: docker://REF and oras://REF from an
// OCI registry, library://[HOST/]PATH[:TAG] from a Sylabs library (pinned
// by :sha256.HEX), shub://; those must be pinned as any image. --no-https
// pulls them over plain http. exec runs its COMMAND in the container,
// which is judged as any command line. --bind (-B) SRC[:DEST[:OPTS]] and
// --mount are docker's -v and --mount, a comma-separated list of them;
// --env KEY=VALUE (also a list) and --env-file are docker's; --add-caps
// and --security as docker's --cap-add and --security-opt; the program of
// a --fusemount TYPE:COMMAND… MOUNTPOINT is judged as any command line.
//
// Apptainer shares the host's network and mounts the user's home folder
// by default: it is made to run a program with the user's own access, as
// the program would run without it, so neither default is reported; what
// the wiring adds is.

// apptainerGlobals are apptainer's options before its command that take a
// value (-c is --config there, and --contain after run or exec).
var apptainerGlobals = set("-c", "--config", "--build-config")

// apptainerValues are the options of apptainer's commands that take a
// value.
var apptainerValues = set("--app", "--add-caps", "--drop-caps", "-B", "--bind",
	"--mount", "--env", "--env-file", "-H", "--home", "--hostname", "-o", "--overlay", "--pwd", "--cwd",
	"-S", "--scratch", "--security", "-W", "--workdir", "--network", "--network-args", "--dns", "--fusemount",
	"--apply-cgroups", "--cpus", "--cpu-shares", "--cpuset-cpus", "--cpuset-mems", "--memory",
	"--memory-reservation", "--memory-swap", "--blkio-weight", "--blkio-weight-device", "--pids-limit",
	"--pem-path", "--authfile", "--docker-host", "--no-mount", "--tmp-sandbox", "--sif-fuse-opt",
	"--passphrase-file", "--library", "--arch", "--platform")

// apptainer judges `apptainer|singularity …`.
func (a *auditor) apptainer(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	rest := optionWords(c.args(), apptainerGlobals, true, nil)
	if len(rest) == 0 {
		return info
	}
	sub := rest[0].text
	switch sub {
	case "instance":
		if len(rest) < 2 || rest[1].text != "start" && rest[1].text != "run" {
			return info
		}
		rest = rest[1:]
	case "pull":
		// pull [options] [FILE] URI: the image, pulled to be run later.
		ops := optionWords(rest[1:], apptainerValues, true, nil)
		if len(ops) > 0 {
			a.apptainerImage(c.name, ops[len(ops)-1], false)
		}
		return info
	case "run", "exec", "shell", "test":
	default:
		return info
	}
	plain := false
	words := optionWords(rest[1:], apptainerValues, true, func(flag string, w arg, val string) {
		a.apptainerOption(flag, arg{text: val, path: w.path, lit: w.lit}, c.depth)
	})
	for _, w := range rest[1 : len(rest)-len(words)] {
		if w.text == "--no-https" || strings.HasPrefix(w.text, "--no-https=") && switchOn(strings.TrimPrefix(w.text, "--no-https="), true) {
			plain = true
		}
	}
	if len(words) == 0 {
		return info
	}
	a.apptainerImage(c.name, words[0], plain)
	if sub == "exec" && len(words) > 1 {
		inner := a.command(words[1:], c.depth+1, ctxNested)
		info.stdinScript = inner.stdinScript
	}
	return info
}

// apptainerOption judges one valued option of apptainer run or exec.
func (a *auditor) apptainerOption(flag string, v arg, depth int) {
	pull := true
	each := func(as string) {
		for _, item := range strings.Split(v.text, ",") {
			if item = strings.TrimSpace(item); item != "" {
				a.containerOption(as, arg{text: item, path: v.path, lit: v.lit}, &pull, depth)
			}
		}
	}
	switch flag {
	case "-B", "--bind":
		each("-v")
	case "--mount":
		a.containerOption("--mount", v, &pull, depth)
	case "--env":
		each("-e")
	case "--env-file":
		a.containerOption("--env-file", v, &pull, depth)
	case "--add-caps":
		each("--cap-add")
	case "--security":
		a.containerOption("--security-opt", v, &pull, depth)
	case "--fusemount":
		// TYPE:COMMAND… MOUNTPOINT: the FUSE program runs in the container
		// (container, container-daemon) or on the host (host,
		// host-daemon), its words split at blanks.
		kind, spec, ok := strings.Cut(v.text, ":")
		switch kind {
		case "container", "container-daemon", "host", "host-daemon":
		default:
			ok = false
		}
		words := strings.Fields(spec)
		if !ok || !v.lit || len(words) < 2 {
			return // apptainer refuses it: nothing runs
		}
		argv := make([]arg, len(words)-1)
		for i, t := range words[:len(words)-1] {
			argv[i] = arg{text: t, path: v.path, lit: true}
		}
		a.command(argv, depth+1, ctxNested)
	}
}

// apptainerImage judges the image of an apptainer command (the program
// name): a URI that is pulled must be pinned; plain says --no-https pulls
// it over http.
func (a *auditor) apptainerImage(name string, w arg, plain bool) {
	if !w.lit {
		return
	}
	s := strings.TrimSpace(w.text)
	scheme, ref, ok := strings.Cut(s, "://")
	if !ok {
		return // a local image file or folder
	}
	switch lower(scheme) {
	case "docker", "oras", "shub":
	case "library":
		// library://[HOST/]ENTITY/COLLECTION/NAME[:TAG], pinned by
		// :sha256.HEX; a path of one or two parts is in the default
		// entity and collection.
		if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') && strings.HasPrefix(lower(ref[i+1:]), "sha256.") {
			ref = ref[:i] + "@sha256:" + ref[i+len(":sha256."):]
		}
	default:
		return // docker-daemon:, a local archive: nothing is pulled
	}
	a.inferred.Network = true
	if ok, why := imagePinned(ref); !ok {
		a.add(CodeUnpinned, w.path, quoted(name)+" pulls the container image "+quoted(s)+", which "+why+"; pin a digest or a version tag")
	}
	a.minerImage(arg{text: ref, path: w.path, lit: true})
	if plain {
		a.add(CodeInsecureURL, w.path, quoted(name)+" pulls the container image "+quoted(s)+" over plain http (--no-https), which anyone on the way can replace")
	}
}
