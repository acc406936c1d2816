package assess

import (
	"slices"
	"strings"
)

// The package managers of the system install from the distribution's
// repositories, whose packages are signed: installing uses the network,
// and a package named without a version is the distribution's current
// one, which no manifest can pin. Three of their uses step outside that:
//
//   - A package given by its URL (rpm -i URL, dnf|yum|zypper install URL,
//     pacman -U URL, brew install URL, scoop install URL, flatpak install
//     of a .flatpakref URL) is whatever that URL serves when the command
//     runs, not a package of a signed repository, and its install scripts
//     run as root: unpinned, as a pip or npm package by URL is, and
//     insecure_url over plain http or ftp.
//   - A repository or its definition read over plain http where nothing
//     signs it: helm repo add (charts are not signed unless --verify),
//     dnf config-manager --add-repo and yum-config-manager's .repo files
//     (they say where packages come from and which key signs them),
//     flatpak's .flatpakrepo files (they carry the key),
//     a Chocolatey feed (-s, --source).
//   - Signature or checksum checks turned off: apt's
//     --allow-unauthenticated (and its -o settings), apk --allow-untrusted,
//     dnf and yum --nogpgcheck (and gpgcheck=0 set with --setopt), rpm
//     --nosignature, zypper --no-gpg-checks, snap --dangerous, flatpak
//     --no-gpg-verify, choco --ignore-checksums, winget
//     --ignore-security-hash, scoop --skip-hash-check, a deb line marked
//     [trusted=yes]: insecure_url, as certificate checks turned off are.
//     brew --HEAD builds a formula from its branch's head: unpinned.
//     brew --no-quarantine installs an app without the quarantine mark
//     Gatekeeper checks: defense_evasion, as xattr removing it is.
//
// apt and apk read repositories over plain http by design (their indexes
// are signed), so their http mirrors are not judged.

// sysManager says, for one package manager of the system, which of its
// subcommands install packages given by URL, which of its options take a
// value, and which turn signature or checksum checks off.
type sysManager struct {
	urlSubs  map[string]bool
	values   map[string]bool
	noVerify map[string]bool
}

var sysManagers = map[string]sysManager{
	"apt-get": {values: set("-o", "--option", "-c", "--config-file", "-t", "--target-release"),
		noVerify: set("--allow-unauthenticated", "--allow-insecure-repositories", "--force-yes")},
	"apt": {values: set("-o", "--option", "-c", "--config-file", "-t", "--target-release"),
		noVerify: set("--allow-unauthenticated", "--allow-insecure-repositories")},
	"apk": {values: set("-X", "--repository", "--root", "-p", "--repositories-file", "--keys-dir", "--arch",
		"--cache-dir", "-t", "--virtual"), noVerify: set("--allow-untrusted")},
	"dnf": {urlSubs: set("install", "in", "localinstall", "reinstall", "upgrade", "up", "update"),
		values: set("--repo", "--repoid", "--setopt", "-c", "--config", "--installroot", "--releasever",
			"--enablerepo", "--disablerepo", "--repofrompath", "-x", "--exclude"),
		noVerify: set("--nogpgcheck", "--no-gpgchecks")},
	"yum": {urlSubs: set("install", "localinstall", "reinstall", "upgrade", "update"),
		values: set("--setopt", "-c", "--config", "--installroot", "--releasever", "--enablerepo",
			"--disablerepo", "-x", "--exclude"),
		noVerify: set("--nogpgcheck")},
	"microdnf": {urlSubs: set("install", "reinstall", "upgrade"),
		values:   set("--setopt", "--config", "--installroot", "--releasever", "--enablerepo", "--disablerepo"),
		noVerify: set("--nogpgcheck")},
	"zypper": {urlSubs: set("install", "in", "update", "up"),
		values:   set("-r", "--repo", "--from", "--root", "-R", "-c", "--config", "-t", "--type"),
		noVerify: set("--no-gpg-checks", "--allow-unsigned-rpm")},
	"pacman": {values: set("-r", "--root", "-b", "--dbpath", "--cachedir", "--config", "--arch", "--gpgdir",
		"--hookdir", "--logfile", "--sysroot", "--overwrite", "--ignore", "--ignoregroup", "--assume-installed")},
	"rpm": {values: set("--root", "--dbpath", "--prefix", "--relocate", "--excludepath", "-r", "--define", "-D",
		"--macros", "--rcfile", "--pipe"), noVerify: set("--nosignature", "--nodigest")},
	"brew":    {urlSubs: set("install", "reinstall", "upgrade"), values: set("--appdir", "--cc", "--env")},
	"scoop":   {urlSubs: set("install"), values: set("-a", "--arch"), noVerify: set("--skip-hash-check", "--skip", "-s")},
	"flatpak": {urlSubs: set("install"), values: set("--arch", "--subpath", "--installation", "--sideload-repo"), noVerify: set("--no-gpg-verify")},
	"snap":    {values: set("--channel", "--revision", "--cohort"), noVerify: set("--dangerous")},
	"choco": {values: set("-s", "--source", "--version", "-u", "--user", "-p", "--password", "--params",
		"--package-parameters", "--install-arguments", "--ia", "--cache-location", "--execution-timeout"),
		noVerify: set("--ignore-checksums", "--ignorechecksums", "--ignore-checksum", "--ignorechecksum",
			"--allow-empty-checksums", "--allowemptychecksums", "--allowemptychecksum")},
	"winget": {values: set("--id", "--name", "--moniker", "-v", "--version", "-s", "--source", "--scope", "-a",
		"--architecture", "-l", "--location", "--log", "-o", "--override", "--custom", "--locale", "--header"),
		noVerify: set("--ignore-security-hash")},
	"port":               {},
	"yum-config-manager": {},
}

// systemInstaller is the rule of a package manager of the system: its
// listed subcommands install, so they use the network, and what
// sysManagers says of it is judged.
func systemInstaller(subs ...string) programRule {
	net := installsPackages(subs...).judge
	return programRule{judge: func(a *auditor, c invocation) cmdInfo {
		info := net(a, c)
		a.systemPackages(c)
		return info
	}}
}

// systemPackages judges a package manager of the system given a package
// or a repository by URL, or told not to check signatures.
func (a *auditor) systemPackages(c invocation) {
	m, ok := sysManagers[c.name]
	if !ok {
		return
	}
	args := c.args()
	ops := operands(args, m.values, false, nil)
	sub := ""
	if len(ops) > 0 {
		sub = ops[0].text
	}
	installs := false // rpm's and pacman's modes that install files
	for _, w := range args {
		installs = installs || c.name == "rpm" && rpmInstalls(w.text) || c.name == "pacman" && pacmanUpgrades(w.text)
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		if t == "--" {
			break
		}
		if len(t) < 2 || t[0] != '-' {
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case m.noVerify[flag] && (c.name != "rpm" || installs) && (c.name != "scoop" || sub == "install" || sub == "update"):
			a.signaturesOff(c, w, flag)
		case flag == "--HEAD" && c.name == "brew":
			a.add(CodeUnpinned, w.path, "`brew --HEAD` builds the formula from the head of its repository's branch, which can change at any time; install a released version")
		case flag == "--no-quarantine" && c.name == "brew":
			a.evasion(c, "installs an app without the quarantine mark Gatekeeper checks (--no-quarantine)")
		case flag == "--setopt" || flag == "-o" || flag == "--option":
			if v, ok := optValue(args, &i, val, joined); ok && v.lit && settingOff(c.name, v.text) {
				a.signaturesOff(c, v, v.text)
			}
		case (flag == "-s" || flag == "--source") && c.name == "choco":
			if v, ok := optValue(args, &i, val, joined); ok {
				a.plainFetch(v, "choco", "reads its packages")
			}
		case flag == "--add-repo" || flag == "--from-repofile":
			if v, ok := optValue(args, &i, val, joined); ok {
				a.repositoryFile(c.name+" "+flag, v)
			}
		case !joined && m.values[flag]:
			i++
		}
	}
	switch {
	case c.name == "flatpak" && sub == "remote-add" && len(ops) >= 3:
		// flatpak remote-add [--from] NAME LOCATION: with --from the
		// location is a .flatpakrepo file, which carries the key the
		// repository is signed with.
		a.inferred.Network = true
		if slices.ContainsFunc(args, func(w arg) bool { return w.text == "--from" }) {
			a.repositoryFile("flatpak remote-add --from", ops[2])
		}
	case installs:
		for _, w := range ops {
			a.packageURL(c.name, w)
		}
	case m.urlSubs[sub]:
		for _, w := range ops[1:] {
			a.packageURL(c.name+" "+sub, w)
		}
	}
}

// aptRepository judges add-apt-repository: it reads the repository's key
// and index, and a source line marked [trusted=yes] has apt install the
// repository's packages without checking their signatures.
func (a *auditor) aptRepository(c invocation) cmdInfo {
	a.inferred.Network = true
	for _, w := range c.args() {
		if strings.Contains(lower(w.text), "trusted=yes") {
			a.signaturesOff(c, w, "[trusted=yes]")
		}
	}
	return cmdInfo{name: c.name}
}

// settingOff reports whether a setting given on a package manager's
// command line (dnf --setopt KEY=VALUE, apt -o KEY=VALUE) turns a
// signature or certificate check off.
func settingOff(name, kv string) bool {
	key, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
	if !ok {
		return false
	}
	key, val = lower(strings.TrimSpace(key)), lower(strings.Trim(strings.TrimSpace(val), `"'`))
	on := val == "1" || val == "true" || val == "yes" || val == "on"
	off := val == "0" || val == "false" || val == "no" || val == "off"
	switch name {
	case "dnf", "yum", "microdnf":
		if i := strings.LastIndexByte(key, '.'); i >= 0 {
			key = key[i+1:] // a repository's own setting: fedora.gpgcheck
		}
		switch key {
		case "gpgcheck", "localpkg_gpgcheck", "repo_gpgcheck", "pkg_gpgcheck", "sslverify":
			return off
		}
	case "apt", "apt-get":
		switch key {
		case "apt::get::allowunauthenticated", "acquire::allowinsecurerepositories",
			"acquire::allowdowngradetoinsecurerepositories":
			return on
		case "acquire::https::verify-peer", "acquire::https::verify-host":
			return off
		}
	}
	return false
}

// signaturesOff reports a package manager told to install what it does not
// verify.
func (a *auditor) signaturesOff(c invocation, w arg, what string) {
	a.add(CodeInsecureURL, w.path, quoted(c.name+" "+safeText(what, 80))+" installs packages without checking their signatures or checksums, so a package replaced on the way or on its server is installed as it is")
}

// rpmInstalls reports whether an rpm option is one of its modes that
// install a package: -i, -U, -F (alone or with other letters: -ivh,
// -Uvh) and their long names.
func rpmInstalls(t string) bool {
	switch t {
	case "--install", "--upgrade", "--freshen", "--reinstall":
		return true
	}
	return len(t) > 1 && t[0] == '-' && strings.ContainsAny(t[1:2], "iUF")
}

// pacmanUpgrades reports whether a pacman option is -U (--upgrade), which
// installs package files, URLs among them.
func pacmanUpgrades(t string) bool {
	return t == "--upgrade" || len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsRune(t, 'U')
}

// repositoryFile judges a file that says where a package manager's
// packages come from (a .repo file, a .flatpakrepo, which carries the key
// the repository is signed with), read from a URL: network use and
// insecure_url over plain http.
func (a *auditor) repositoryFile(who string, w arg) {
	if _, u, ok := wordURL(strings.TrimSpace(w.text)); ok && w.lit && !loopbackHost(u.Hostname()) {
		a.inferred.Network = true
		a.plainFetch(w, who, "reads its repository definition")
	}
}

// packageURL judges one package a package manager of the system installs
// from a URL: network use, insecure over plain http or ftp, and unpinned
// unless the URL names a commit.
func (a *auditor) packageURL(who string, w arg) {
	s := strings.TrimSpace(w.text)
	if !w.lit || s == "" {
		return
	}
	u, ok := parseAnyURL(s)
	if !ok {
		return
	}
	scheme := lower(u.Scheme)
	if scheme != "http" && scheme != "https" && scheme != "ftp" || loopbackHost(u.Hostname()) {
		return
	}
	a.inferred.Network = true
	if scheme == "ftp" {
		a.add(CodeInsecureURL, w.path, quoted(who)+" downloads the package from "+safeText(u.Host, 80)+" over plain ftp, which anyone on the way can replace")
	} else {
		a.plainFetch(w, who, "downloads the package")
	}
	if !commitURL(s) {
		a.add(CodeUnpinned, w.path, quoted(who)+" installs the package "+safeText(u.Host, 80)+
			" serves when it runs, not one of a signed repository, and it can change without notice; install it from the distribution's repositories")
	}
}
