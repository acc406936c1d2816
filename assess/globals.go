package assess

// Options before a subcommand: uv, go, pipx, gem and dotnet read their
// global options before the subcommand as anywhere else (`uv --directory d
// tool run pkg`, `go -C dir run pkg@latest`, `gem --norc install pkg`), so
// their subcommand is the first word after those options, not the first
// word. Every word is still judged as data where it stands.

// uvGlobalValues are uv's options that take a value and may come before
// its subcommand.
var uvGlobalValues = set("--directory", "--project", "--config-file", "--cache-dir", "--color",
	"--allow-insecure-host", "--trusted-host", "--python-preference", "--python-fetch", "--python", "-p")

// withoutGlobalOptions returns argv (a program and its words) without the
// options between the program and its subcommand, the values of those in
// withValue included; argv itself when there are none.
func withoutGlobalOptions(argv []arg, withValue map[string]bool) []arg {
	if len(argv) < 2 {
		return argv
	}
	rest := skipFlags(argv[1:], withValue)
	if len(rest) == len(argv)-1 {
		return argv
	}
	return append([]arg{argv[0]}, rest...)
}
