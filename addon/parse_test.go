package addon

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// where is the part of a FieldError a test pins: path and line. Messages
// are checked for safety and for a key phrase.
type where struct {
	Path string
	Line int
}

type badCase struct {
	name  string
	json  bool   // the input is the JSON form
	in    string // the document
	want  []where
	maybe string // a phrase the first message must contain
}

func (c badCase) parse() (*Manifest, error) {
	if c.json {
		return ParseJSON([]byte(c.in))
	}
	return ParseTOML([]byte(c.in))
}

const okHead = "[addon]\nname = \"ok\"\n"

var badCases = []badCase{
	// Syntax.
	{name: "toml syntax", in: "[addon\nname = \"x\"\n", want: []where{{"", 1}}, maybe: "TOML syntax error at line 1, column 7: a table header is not closed"},
	{name: "toml unterminated string", in: okHead + "[mcp]\ncommand = \"abc\n", want: []where{{"", 4}}, maybe: "TOML syntax error"},
	{name: "toml duplicate key", in: okHead + "name = \"y\"\n", want: []where{{"", 3}}, maybe: "TOML syntax error"},
	{name: "json syntax", json: true, in: "{\"addon\": {\"name\": \"x\",}}", want: []where{{"", 1}}, maybe: "JSON syntax error"},
	{name: "json truncated", json: true, in: "{\"addon\": {\"name\": \"x\"", want: []where{{"", 1}}, maybe: "ends unexpectedly"},
	{name: "json trailing data", json: true, in: "{\"addon\": {\"name\": \"x\"}}\n{}", want: []where{{"", 2}}, maybe: "after the JSON document"},
	{name: "json duplicate key", json: true, in: "{\"addon\": {\"name\": \"x\",\n\"name\": \"y\"}}", want: []where{{"addon", 2}}, maybe: "duplicate"},
	{name: "json not an object", json: true, in: "[1]", want: []where{{"", 0}}, maybe: "must be a table"},
	{name: "empty document", in: "", want: []where{{"addon", 0}}, maybe: "is required"},

	// Unknown keys at every level.
	{name: "unknown top-level", in: "extra = 1\n" + okHead, want: []where{{"extra", 1}}, maybe: "unknown key"},
	{name: "unknown addon key", in: okHead + "nmae = \"x\"\n", want: []where{{"addon.nmae", 3}}},
	{name: "typo in mcp", in: okHead + "[mcp]\ncomand = \"x\"\n", want: []where{{"mcp.comand", 4}}},
	{name: "unknown capabilities key", in: okHead + "[capabilities]\nnet = \"none\"\n", want: []where{{"capabilities.net", 4}}},
	{name: "unknown install key", in: okHead + "[install]\nmanagr = \"uv\"\n", want: []where{{"install.managr", 4}}},
	{name: "unknown pricing key", in: okHead + "[pricing]\nprice = 1\n", want: []where{{"pricing.price", 4}}},
	{name: "unknown artifact key", in: okHead + "[artifacts.x86_64-unknown-linux-gnu]\nsha = \"a\"\n", want: []where{{"artifacts.x86_64-unknown-linux-gnu.sha", 4}}},
	{name: "unknown dependency key", in: okHead + "[[dependencies]]\nname = \"a\"\n[[dependencies]]\nname = \"b\"\noptional = true\n", want: []where{{"dependencies[1].optional", 7}}},
	{name: "unknown key not printable", in: "\"a b\" = 1\n" + okHead, want: []where{{"", 1}}, maybe: "not printable"},
	{name: "json unknown key", json: true, in: "{\"addon\": {\"name\": \"x\"},\n \"mcp\": {\"comand\": \"x\"}}", want: []where{{"mcp.comand", 2}}},

	// Wrong types.
	{name: "name not a string", in: "[addon]\nname = 5\n", want: []where{{"addon.name", 2}}, maybe: "must be a string, not an integer"},
	{name: "addon not a table", in: "addon = \"x\"\n", want: []where{{"addon", 1}}, maybe: "must be a table"},
	{name: "args a string", in: okHead + "[mcp]\nargs = \"-y pkg\"\n", want: []where{{"mcp.args", 4}}, maybe: "array of strings"},
	{name: "args element an integer", in: okHead + "[mcp]\nargs = [\"a\",\n  2]\n", want: []where{{"mcp.args[1]", 5}}},
	{name: "env value an integer", in: okHead + "[mcp.env]\nPORT = 8080\n", want: []where{{"mcp.env.PORT", 4}}},
	{name: "env not a table", in: okHead + "[mcp]\nenv = [\"A=1\"]\n", want: []where{{"mcp.env", 4}}},
	{name: "verified a string", in: okHead + "verified = \"yes\"\n", want: []where{{"addon.verified", 3}}, maybe: "boolean"},
	{name: "price a float", in: okHead + "[pricing]\nprice_cents = 19.0\n", want: []where{{"pricing.price_cents", 4}}, maybe: "integer"},
	{name: "price a json fraction", json: true, in: `{"addon":{"name":"x"},"pricing":{"price_cents":1.5}}`, want: []where{{"pricing.price_cents", 1}}},
	{name: "date-time value", in: okHead + "version = 1979-05-27\n", want: []where{{"addon.version", 3}}, maybe: "date-time"},
	{name: "json null", json: true, in: `{"addon":{"name":"x"},"mcp":null}`, want: []where{{"mcp", 1}}, maybe: "null"},
	{name: "dependencies a table", in: okHead + "[dependencies]\nname = \"a\"\n", want: []where{{"dependencies", 3}}},
	{name: "exec a number", in: okHead + "[capabilities]\nexec = 1\n", want: []where{{"capabilities.exec", 4}}},

	// Enums.
	{name: "transport", in: okHead + "[mcp]\ntransport = \"sse\"\n", want: []where{{"mcp.transport", 4}}, maybe: `"stdio" or "http"`},
	{name: "transport empty", in: okHead + "[mcp]\ntransport = \"\"\n", want: []where{{"mcp.transport", 4}}},
	{name: "network", in: okHead + "[capabilities]\nnetwork = \"some\"\n", want: []where{{"capabilities.network", 4}}},
	{name: "filesystem", in: okHead + "[capabilities]\nfilesystem = \"rw\"\n", want: []where{{"capabilities.filesystem", 4}}},
	{name: "exec mode", in: okHead + "[capabilities]\nexec = \"allow\"\n", want: []where{{"capabilities.exec", 4}}},
	{name: "pricing model", in: okHead + "[pricing]\nmodel = \"free\"\n", want: []where{{"pricing.model", 4}}},
	{name: "integration", in: okHead + "integration = \"code_grah\"\n", want: []where{{"addon.integration", 3}}},
	{name: "price negative", in: okHead + "[pricing]\nprice_cents = -1\n", want: []where{{"pricing.price_cents", 4}}},
	{name: "price over u32", in: okHead + "[pricing]\nusage_price_per_1k_cents = 4294967296\n", want: []where{{"pricing.usage_price_per_1k_cents", 4}}},

	// Names.
	{name: "name missing", in: "[addon]\nversion = \"1\"\n", want: []where{{"addon.name", 1}}, maybe: "is required"},
	{name: "name upper case", in: "[addon]\nname = \"Bad\"\n", want: []where{{"addon.name", 2}}, maybe: "slug"},
	{name: "name trailing dash", in: "[addon]\nname = \"x-\"\n", want: []where{{"addon.name", 2}}},
	{name: "name surrounding blank", in: "[addon]\nname = \" x\"\n", want: []where{{"addon.name", 2}}},
	{name: "name underscore", in: "[addon]\nname = \"under_score\"\n", want: []where{{"addon.name", 2}}},
	{name: "name too long", in: "[addon]\nname = \"" + strings.Repeat("a", MaxNameBytes+1) + "\"\n", want: []where{{"addon.name", 2}}, maybe: "longer than"},
	{name: "dependency name", in: okHead + "[[dependencies]]\nname = \"\"\n", want: []where{{"dependencies[0].name", 4}}},

	// Install.
	{name: "install unknown manager", in: okHead + "[install]\nmanager = \"conda\"\npackage = \"p\"\nversion = \"1.0.0\"\n", want: []where{{"install.manager", 4}}},
	{name: "install manager upper case", in: okHead + "[install]\nmanager = \"UV\"\npackage = \"p\"\nversion = \"1.0.0\"\n", want: []where{{"install.manager", 4}}},
	{name: "install no manager", in: okHead + "[install]\npackage = \"p\"\nversion = \"1.0.0\"\n", want: []where{{"install.manager", 3}}},
	{name: "install caret range", in: okHead + "[install]\nmanager = \"npm\"\npackage = \"p\"\nversion = \"^1.2.0\"\n", want: []where{{"install.version", 6}}},
	{name: "install tilde range", in: okHead + "[install]\nmanager = \"npm\"\npackage = \"p\"\nversion = \"~1.2.0\"\n", want: []where{{"install.version", 6}}},
	{name: "install x range", in: okHead + "[install]\nmanager = \"npm\"\npackage = \"p\"\nversion = \"1.x\"\n", want: []where{{"install.version", 6}}},
	{name: "install comparison", in: okHead + "[install]\nmanager = \"pip\"\npackage = \"p\"\nversion = \">=1.0\"\n", want: []where{{"install.version", 6}}},
	{name: "install dist tag", in: okHead + "[install]\nmanager = \"npm\"\npackage = \"p\"\nversion = \"next\"\n", want: []where{{"install.version", 6}}},
	{name: "install LATEST", in: okHead + "[install]\nmanager = \"npm\"\npackage = \"p\"\nversion = \"LATEST\"\n", want: []where{{"install.version", 6}}},
	{name: "install backtick package", in: okHead + "[install]\nmanager = \"uv\"\npackage = \"pkg`whoami`\"\nversion = \"1.0.0\"\n", want: []where{{"install.package", 5}}},
	{name: "install bin meta", in: okHead + "[install]\nmanager = \"uv\"\npackage = \"p\"\nversion = \"1.0.0\"\nbin = \"x;y\"\n", want: []where{{"install.bin", 7}}},
	{name: "install verify meta", in: okHead + "[install]\nmanager = \"uv\"\npackage = \"p\"\nversion = \"1.0.0\"\nverify = [\"p\", \"--version | sh\"]\n", want: []where{{"install.verify[1]", 7}}},
	{name: "install subshell verify", in: okHead + "[install]\nmanager = \"uv\"\npackage = \"p\"\nversion = \"1.0.0\"\nverify = [\"$(id)\"]\n", want: []where{{"install.verify[0]", 7}}},

	// Capabilities.
	{name: "caps env leading digit", in: okHead + "[capabilities]\nenv = [\"OK\", \"1X\"]\n", want: []where{{"capabilities.env[1]", 4}}},
	{name: "caps env empty", in: okHead + "[capabilities]\nenv = [\"\"]\n", want: []where{{"capabilities.env[0]", 4}}},
	{name: "caps exec tab", in: okHead + "[capabilities]\nexec = [\"git\",\n \"a\\tb\"]\n", want: []where{{"capabilities.exec[1]", 5}}, maybe: "control"},
	{name: "caps exec empty entry", in: okHead + "[capabilities]\nexec = [\"\"]\n", want: []where{{"capabilities.exec[0]", 4}}},

	// Characters in values and keys.
	{name: "nul escaped", in: okHead + "description = \"a\\u0000b\"\n", want: []where{{"addon.description", 3}}, maybe: "U+0000"},
	{name: "nul raw", in: okHead + "description = \"a\x00b\"\n", want: []where{{"addon.description", 3}}, maybe: "U+0000"},
	{name: "newline escaped", in: okHead + "[mcp]\ncommand = \"a\\nb\"\n", want: []where{{"mcp.command", 4}}, maybe: "control"},
	{name: "multi-line string", in: okHead + "description = \"\"\"\none\ntwo\"\"\"\n", want: []where{{"addon.description", 3}}, maybe: "control"},
	{name: "escape char", in: okHead + "[mcp]\nargs = [\"\\u001b[2J\"]\n", want: []where{{"mcp.args[0]", 4}}},
	{name: "del", in: okHead + "author = \"a\\u007f\"\n", want: []where{{"addon.author", 3}}},
	{name: "c1", in: okHead + "author = \"a\\u009b\"\n", want: []where{{"addon.author", 3}}},
	{name: "bidi override escaped", in: okHead + "[mcp]\nargs = [\"a\",\n \"b\\u202Ec\"]\n", want: []where{{"mcp.args[1]", 5}}, maybe: "bidirectional"},
	{name: "bidi isolate", in: okHead + "homepage = \"\\u2066x\"\n", want: []where{{"addon.homepage", 3}}},
	{name: "arabic letter mark", in: okHead + "license = \"\\u061c\"\n", want: []where{{"addon.license", 3}}},
	{name: "rtl mark", in: okHead + "license = \"\\u200f\"\n", want: []where{{"addon.license", 3}}},
	{name: "zero-width space", in: okHead + "[mcp]\ncommand = \"np\\u200bx\"\n", want: []where{{"mcp.command", 4}}, maybe: "invisible"},
	{name: "soft hyphen", in: okHead + "display_name = \"ad\\u00ADmin\"\n", want: []where{{"addon.display_name", 3}}, maybe: "U+00AD"},
	{name: "raw soft hyphen", in: okHead + "author = \"a\u00ADb\"\n", want: []where{{"addon.author", 3}}, maybe: "U+00AD"},
	{name: "line separator", in: okHead + "description = \"a\\u2028b\"\n", want: []where{{"addon.description", 3}}, maybe: "separator"},
	{name: "tag character", in: okHead + "author = \"a\\U000E0041\"\n", want: []where{{"addon.author", 3}}, maybe: "invisible"},
	{name: "private use", in: okHead + "display_name = \"\\uE0B0 x\"\n", want: []where{{"addon.display_name", 3}}, maybe: "private-use"},
	{name: "noncharacter", in: okHead + "author = \"\\uFDD0\"\n", want: []where{{"addon.author", 3}}, maybe: "noncharacter"},
	{name: "hangul filler", in: okHead + "author = \"\\u3164\"\n", want: []where{{"addon.author", 3}}, maybe: "invisible"},
	{name: "stray zero width joiner", in: okHead + "author = \"a\\u200Db\"\n", want: []where{{"addon.author", 3}}},
	{name: "second bom", in: "\ufeff\ufeff" + okHead, want: []where{{"", 1}}},
	{name: "json second bom", json: true, in: "\ufeff\ufeff{}", want: []where{{"", 1}}},
	{name: "bom inside", in: okHead + "keywords = [\"\\ufeff\"]\n", want: []where{{"addon.keywords[0]", 3}}},
	{name: "word joiner", in: okHead + "categories = [\"a\\u2060\"]\n", want: []where{{"addon.categories[0]", 3}}},
	{name: "raw bidi in a comment", in: okHead + "# \u202e hidden\n", want: []where{{"", 3}}, maybe: "bidirectional"},
	{name: "raw bidi in a value", in: okHead + "author = \"a\u202eb\"\n", want: []where{{"addon.author", 3}}},
	// A document of printable ASCII: a literal tab and a multi-line string
	// are what can still put a control character into a value.
	{name: "literal tab in a value", in: okHead + "author = \"a\tb\"\n", want: []where{{"addon.author", 3}}, maybe: "control"},
	{name: "multi-line string in a one-line field", in: okHead + "author = \"\"\"a\nb\"\"\"\n", want: []where{{"addon.author", 3}}, maybe: "control"},
	{name: "multi-line literal string in a one-line field", in: okHead + "[mcp]\ncommand = '''x\ny'''\n", want: []where{{"mcp.command", 4}}, maybe: "control"},
	{name: "invalid utf-8", in: okHead + "author = \"\xff\"\n", want: []where{{"addon.author", 3}}, maybe: "UTF-8"},
	{name: "json invalid utf-8", json: true, in: "{\"addon\":{\"name\":\"x\",\n\"author\":\"\xc3\x28\"}}", want: []where{{"", 2}}, maybe: "UTF-8"},
	{name: "json escaped nul", json: true, in: "{\"addon\":{\"name\":\"x\"},\n\"mcp\":{\"args\":[\"\\u0000\"]}}", want: []where{{"mcp.args[0]", 2}}},
	{name: "env value control", in: okHead + "[mcp.env]\nA = \"\\u0007\"\n", want: []where{{"mcp.env.A", 4}}},
	{name: "env key control", in: okHead + "[mcp.env]\n\"A\\u0007\" = \"x\"\n", want: []where{{"mcp.env", 4}}, maybe: "a key contains a control"},
	{name: "env key bidi", in: okHead + "[mcp.env]\n\"\\u202eA\" = \"x\"\n", want: []where{{"mcp.env", 4}}, maybe: "bidirectional"},
	{name: "env key zero-width", in: okHead + "[mcp]\nenv = { \"PA\\u200bTH\" = \"x\" }\n", want: []where{{"mcp.env", 4}}},
	{name: "env key with equals", in: okHead + "[mcp.env]\n\"A=B\" = \"x\"\n", want: []where{{"mcp.env", 4}}, maybe: "'='"},
	{name: "env key empty", in: okHead + "[mcp.env]\n\"\" = \"x\"\n", want: []where{{"mcp.env", 4}}, maybe: "empty"},
	{name: "header key not a token", in: okHead + "[mcp.headers]\n\"X Auth\" = \"x\"\n", want: []where{{"mcp.headers", 4}}, maybe: "header name"},
	{name: "header value newline", in: okHead + "[mcp.headers]\nX-Api-Key = \"a\\r\\nInjected: 1\"\n", want: []where{{"mcp.headers.X-Api-Key", 4}}},
	{name: "artifact triple unsafe", in: okHead + "[artifacts.\"x86 64\"]\nurl = \"u\"\n", want: []where{{"artifacts", 3}}, maybe: "target triple"},
	{name: "artifact filename climbs", in: okHead + "[artifacts.x86_64-unknown-linux-gnu]\nfilename = \"../../.bashrc\"\n", want: []where{{"artifacts.x86_64-unknown-linux-gnu.filename", 4}}, maybe: "plain file name"},
	{name: "artifact filename absolute", in: okHead + "[artifacts.x86_64-pc-windows-msvc]\nfilename = 'C:\\Users\\u\\x.exe'\n", want: []where{{"artifacts.x86_64-pc-windows-msvc.filename", 4}}, maybe: "plain file name"},
	{name: "artifact filename a device", in: okHead + "[artifacts.x86_64-pc-windows-msvc]\nfilename = \"nul.tar.gz\"\n", want: []where{{"artifacts.x86_64-pc-windows-msvc.filename", 4}}, maybe: "plain file name"},
	{name: "artifact filename json", json: true, in: "{\"addon\":{\"name\":\"x\",\"version\":\"1.0.0\"},\n\"artifacts\":{\"t\":{\"filename\":\"/etc/cron.d/x\"}}}", want: []where{{"artifacts.t.filename", 2}}, maybe: "plain file name"},

	// Sizes.
	{name: "description too long", in: okHead + "description = \"" + strings.Repeat("d", MaxDescriptionBytes+1) + "\"\n", want: []where{{"addon.description", 3}}},
	{name: "string too long", in: okHead + "[mcp]\ncommand = \"" + strings.Repeat("c", MaxStringBytes+1) + "\"\n", want: []where{{"mcp.command", 4}}},
	{name: "arg too long", in: okHead + "[mcp]\nargs = [\"" + strings.Repeat("a", MaxArgBytes+1) + "\"]\n", want: []where{{"mcp.args[0]", 4}}},
	{name: "too many args", in: okHead + "[mcp]\nargs = [" + strings.Repeat("\"a\",", MaxArgs+1) + "]\n", want: []where{{"mcp.args", 4}}, maybe: "more than"},
	{name: "too many args json", json: true, in: "{\"addon\":{\"name\":\"x\"},\n\"mcp\":{\"args\":[" + strings.Repeat("\"a\",", MaxArgs) + "\"a\"]}}", want: []where{{"mcp.args", 2}}, maybe: "more than"},
	{name: "too many env entries json", json: true, in: "{\"addon\":{\"name\":\"x\"},\"mcp\":{\"env\":{" + manyJSONKeys(MaxMapEntries+1) + "}}}", want: []where{{"mcp.env", 1}}},
	{name: "too many keywords", in: okHead + "keywords = [" + strings.Repeat("\"k\",", MaxListLen+1) + "]\n", want: []where{{"addon.keywords", 3}}},
	{name: "too many env entries", in: okHead + "[mcp.env]\n" + manyKeys(MaxMapEntries+1), want: []where{{"mcp.env", 3}}},
	{name: "too many dependencies", in: okHead + strings.Repeat("[[dependencies]]\nname = \"d\"\n", MaxDependencies+1), want: []where{{"dependencies", 3}}},
	{name: "key too long", in: okHead + "[mcp.env]\n" + strings.Repeat("K", MaxKeyBytes+1) + " = \"v\"\n", want: []where{{"mcp.env", 4}}, maybe: "a key is longer"},
	{name: "deep toml arrays", in: okHead + "[mcp]\nargs = " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n", want: []where{{"", 4}}, maybe: "deeper"},
	{name: "deep toml inline tables", in: okHead + "x = " + strings.Repeat("{a = ", 20) + "1" + strings.Repeat("}", 20) + "\n", want: []where{{"", 3}}, maybe: "deeper"},
	{name: "deep toml headers", in: okHead + "[a.b.c.d.e.f.g.h.i]\n", want: []where{{"", 3}}, maybe: "deeper"},
	{name: "deep json", json: true, in: "{\"addon\":" + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}", want: []where{{"", 1}}, maybe: "deeper"},
	{name: "json enormous array", json: true, in: "{\"x\":[" + strings.Repeat("0,", 100000) + "0]}", want: []where{{"x", 1}}, maybe: "more than"},
	{name: "json enormous object", json: true, in: "{\"x\":{" + manyJSONKeys(MaxArgs+1) + "}}", want: []where{{"x", 1}}, maybe: "more than"},
	{name: "toml enormous array", in: okHead + "[mcp]\nargs = [\n" + strings.Repeat("\"\",", 80000) + "]\n", want: []where{{"mcp.args", 5}}, maybe: "more than"},

	// Lines stay right after multi-line strings and arrays.
	{name: "lines after multi-line values", in: "[addon]\nname = \"ok\"\nlicense = '''\nMIT\nor not'''\nkeywords = [\n  \"a\", # comment ]\n  \"b\",\n]\nauthor = \"\"\"x\\\n  y\"\"\"\n[mcp]\ncomand = 1\n",
		want: []where{{"addon.license", 3}, {"mcp.comand", 13}}},

	// Several errors at once, sorted by line then path.
	{name: "several", in: "[addon]\nname = \"Bad\"\nnmae = 1\n[mcp]\ntransport = \"sse\"\nargs = [1, 2]\n",
		want: []where{{"addon.name", 2}, {"addon.nmae", 3}, {"mcp.transport", 5}, {"mcp.args[0]", 6}, {"mcp.args[1]", 6}}},
}

func manyJSONKeys(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "\"K" + strings.Repeat("A", i%20) + "_" + strings.Repeat("B", i/20) + "\":\"v\""
	}
	return strings.Join(keys, ",")
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("K")
		b.WriteString(strings.Repeat("A", i%20))
		b.WriteString("_")
		b.WriteString(strings.Repeat("B", i/20))
		b.WriteString(" = \"v\"\n")
	}
	return b.String()
}

func TestParseRefuses(t *testing.T) {
	for _, c := range badCases {
		t.Run(c.name, func(t *testing.T) {
			m, err := c.parse()
			if err == nil {
				t.Fatalf("accepted: %+v", m)
			}
			if m != nil {
				t.Errorf("returned a manifest with an error")
			}
			var ve *registry.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %T %v, want a *registry.ValidationError", err, err)
			}
			if !errors.Is(err, registry.ErrInvalid) {
				t.Errorf("error does not match registry.ErrInvalid")
			}
			if errors.Is(err, registry.ErrTooLarge) {
				t.Errorf("a field error matches registry.ErrTooLarge")
			}
			got := make([]where, len(ve.Fields))
			for i, f := range ve.Fields {
				got[i] = where{f.Path, f.Line}
				assertQuiet(t, f.Message)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s\n%v", diff, err)
			}
			if c.maybe != "" && !strings.Contains(ve.Fields[0].Message, c.maybe) {
				t.Errorf("message %q does not say %q", ve.Fields[0].Message, c.maybe)
			}
		})
	}
}

// assertQuiet fails when msg could attack a terminal or a page.
func assertQuiet(t *testing.T, msg string) {
	t.Helper()
	if msg == "" {
		t.Errorf("empty message")
	}
	if err := safetext.Check(msg, 0); err != nil || strings.ContainsAny(msg, "<>") {
		t.Errorf("message %q is not quiet (%v)", msg, err)
	}
}

func TestParseNeverEchoes(t *testing.T) {
	const secret = "hunter2-SECRET"
	docs := []string{
		okHead + "[mcp]\ncommand = \"" + secret + "\\u202e\"\n",
		okHead + "[mcp.headers]\n\"" + secret + " x\" = \"v\"\n",
		okHead + "[mcp.env]\nTOKEN = 5\n" + "\"" + secret + "\\u0007\" = \"" + secret + "\"\n",
		okHead + "[mcp.headers]\nAuthorization = \"Bearer " + secret + "\\n\"\n",
		okHead + "[install]\nmanager = \"uv\"\npackage = \"" + secret + ";\"\nversion = \"1\"\n",
		okHead + "[mcp]\ncommand = \"" + secret + "\n",
		okHead + "[mcp]\ncommand = '" + secret + "' '\n",
		okHead + "\"" + secret + "<script>\" = 1\n",
		"[addon]\nname = \"" + secret + "\"\n",
	}
	for i, d := range docs {
		_, err := ParseTOML([]byte(d))
		if err == nil {
			t.Errorf("doc %d: accepted", i)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "<script>") {
			t.Errorf("doc %d: error echoes input: %v", i, err)
		}
	}
	_, err := ParseJSON([]byte(`{"addon":{"name":"x"},"mcp":{"env":{"` + secret + `":1}}}`))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("json: got %v", err)
	}
}

func TestParseTooLarge(t *testing.T) {
	big := okHead + "description = \"" + strings.Repeat("x", MaxManifestBytes) + "\"\n"
	for _, c := range []struct {
		name  string
		parse func([]byte) error
		in    []byte
	}{
		{"toml", func(b []byte) error { _, err := ParseTOML(b); return err }, []byte(big)},
		{"json", func(b []byte) error { _, err := ParseJSON(b); return err }, []byte(`{"x":"` + strings.Repeat("x", MaxManifestBytes) + `"}`)},
		{"registry", func(b []byte) error { _, err := ParseRegistryFile(b); return err }, make([]byte, MaxRegistryFileBytes+1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.parse(c.in)
			if !errors.Is(err, registry.ErrTooLarge) || !errors.Is(err, registry.ErrInvalid) {
				t.Fatalf("got %v, want ErrTooLarge and ErrInvalid", err)
			}
			var ve *registry.ValidationError
			if !errors.As(err, &ve) || !ve.TooLarge {
				t.Errorf("TooLarge not set: %#v", err)
			}
		})
	}
	// Exactly at the bound is not too large.
	at := okHead + "# " + strings.Repeat("x", MaxManifestBytes-len(okHead)-3) + "\n"
	if len(at) != MaxManifestBytes {
		t.Fatalf("test document is %d bytes", len(at))
	}
	if _, err := ParseTOML([]byte(at)); err != nil {
		t.Errorf("a manifest of exactly MaxManifestBytes: %v", err)
	}
}

func TestParseAccepts(t *testing.T) {
	full := `# A complete manifest.
[addon]
name = "full-addon"
display_name = "Full Addon"
version = "1.2.3"
description = "Everything at once — with ünïcödé and emoji 🚀."
author = "someone"
homepage = "https://example.com"
license = "MIT"
categories = ["search", "memory"]
integration = "memory"
keywords = ["a", "b"]
min_lean_ctx = "3.8.0"
verified = true

[mcp]
transport = "stdio"
command = "full-mcp"
args = [
  "serve",
  "--port", "0",
]
sha256 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
env = { LOG_LEVEL = "info", "lower.dotted" = "x" }

[mcp.headers]
X-Api-Key = "k"

[capabilities]
network = "full"
env = ["GITHUB_TOKEN"]
exec = ["git", "/usr/bin/rg"]

[install]
manager = "uv"
package = "full-ai[mcp]"
version = "1.2.3"
bin = "full-mcp"
verify = ["full-mcp", "--version"]

[pricing]
model = "usage"
usage_price_per_1k_cents = 200
currency = "eur"

[artifacts.x86_64-unknown-linux-gnu]
filename = "full-x86_64-unknown-linux-gnu"
url = "https://example.com/full"
sha256 = "bbbb"

[[dependencies]]
name = "other-addon"
version = "2.0.0"

[[dependencies]]
name = "third"
`
	m, err := ParseTOML([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	want := &Manifest{
		Addon: Meta{
			Name: "full-addon", DisplayName: "Full Addon", Version: "1.2.3",
			Description: "Everything at once — with ünïcödé and emoji 🚀.",
			Author:      "someone", Homepage: "https://example.com", License: "MIT",
			Categories: []string{"search", "memory"}, Integration: "memory",
			Keywords: []string{"a", "b"}, MinLeanCtx: "3.8.0", Verified: true,
		},
		MCP: MCP{
			Declared: true, Transport: TransportStdio, Command: "full-mcp",
			Args:    []string{"serve", "--port", "0"},
			Env:     map[string]string{"LOG_LEVEL": "info", "lower.dotted": "x"},
			SHA256:  strings.Repeat("a", 64),
			Headers: map[string]string{"X-Api-Key": "k"},
		},
		Capabilities: &Capabilities{
			Network: NetworkFull, Filesystem: FilesystemReadOnly, Env: []string{"GITHUB_TOKEN"},
			Exec: ExecAllow, ExecAllow: []string{"git", "/usr/bin/rg"},
		},
		Install: &Install{Manager: "uv", Package: "full-ai[mcp]", Version: "1.2.3", Bin: "full-mcp",
			Verify: []string{"full-mcp", "--version"}},
		Pricing: &Pricing{Model: PricingUsage, UsagePricePer1kCents: 200, Currency: "eur"},
		Artifacts: map[string]Artifact{"x86_64-unknown-linux-gnu": {
			Filename: "full-x86_64-unknown-linux-gnu", URL: "https://example.com/full", SHA256: "bbbb"}},
		Dependencies: []Dependency{{Name: "other-addon", Version: "2.0.0"}, {Name: "third"}},
	}
	if diff := cmp.Diff(want, m, cmpopts.IgnoreUnexported(Manifest{})); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}

	lines := map[string]int{
		"addon": 2, "addon.name": 3, "addon.verified": 14, "addon.categories[1]": 10,
		"mcp": 16, "mcp.args": 19, "mcp.args[0]": 20, "mcp.args[1]": 21, "mcp.args[2]": 21,
		"mcp.env": 24, "mcp.env.LOG_LEVEL": 24, "mcp.headers": 26, "mcp.headers.X-Api-Key": 27,
		"capabilities": 29, "capabilities.exec[1]": 32, "install.verify[1]": 39,
		"pricing.currency": 44, "artifacts": 46, "artifacts.x86_64-unknown-linux-gnu": 46,
		"artifacts.x86_64-unknown-linux-gnu.sha256": 49,
		"dependencies": 51, "dependencies[0]": 51, "dependencies[0].version": 53,
		"dependencies[1]": 55, "dependencies[1].name": 56,
	}
	got := map[string]int{}
	for p := range lines {
		got[p] = m.Line(p)
		if !m.HasPath(p) {
			t.Errorf("HasPath(%q) = false", p)
		}
	}
	if diff := cmp.Diff(lines, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	for _, p := range []string{"mcp.env.lower.dotted", "mcp.url", "capabilities.filesystem", "addon.nope", ""} {
		if m.HasPath(p) {
			t.Errorf("HasPath(%q) = true for a field not in the document", p)
		}
	}
	if err := Validate(m); err != nil {
		t.Errorf("Validate(parsed) = %v", err)
	}
}

func TestParseDefaults(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		want *Manifest
	}{
		{"minimal", "[addon]\nname = \"a\"\n", &Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Transport: TransportStdio}}},
		{"mcp without transport", "[addon]\nname = \"a\"\n[mcp]\ncommand = \"c\"\n",
			&Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Declared: true, Transport: TransportStdio, Command: "c"}}},
		{"empty capabilities are strictest", "[addon]\nname = \"a\"\n[capabilities]\n",
			&Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Transport: TransportStdio}, Capabilities: &Capabilities{
				Network: NetworkNone, Filesystem: FilesystemReadOnly, Env: []string{}, Exec: ExecNone}}},
		{"empty exec list allows nothing", "[addon]\nname = \"a\"\n[capabilities]\nexec = []\n",
			&Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Transport: TransportStdio}, Capabilities: &Capabilities{
				Network: NetworkNone, Filesystem: FilesystemReadOnly, Env: []string{}, Exec: ExecAllow, ExecAllow: []string{}}}},
		{"install without package is not declared", "[addon]\nname = \"a\"\n[install]\nmanager = \"conda\"\nversion = \"latest\"\n",
			&Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Transport: TransportStdio}, Install: &Install{Manager: "conda", Version: "latest"}}},
		{"forbidden env name is the audit's business", "[addon]\nname = \"a\"\n[mcp.env]\nLD_PRELOAD = \"x\"\n",
			&Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Declared: true, Transport: TransportStdio, Env: map[string]string{"LD_PRELOAD": "x"}}}},
		{"unsafe env key is kept", "[addon]\nname = \"a\"\n[mcp.env]\n\"my-var\" = \"x\"\n",
			&Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Declared: true, Transport: TransportStdio, Env: map[string]string{"my-var": "x"}}}},
		{"integration alias", "[addon]\nname = \"a\"\nintegration = \"Code_Graph\"\n",
			&Manifest{Addon: Meta{Name: "a", Integration: "Code_Graph"}, MCP: MCP{Transport: TransportStdio}}},
		{"exact pins", "[addon]\nname = \"a\"\n[install]\nmanager = \"pip\"\npackage = \"p\"\nversion = \"v2024.1.0rc1+local\"\n",
			&Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Transport: TransportStdio}, Install: &Install{Manager: "pip", Package: "p", Version: "v2024.1.0rc1+local"}}},
		{"leading byte order mark", "\ufeff[addon]\nname = \"a\"\n", &Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Transport: TransportStdio}}},
		{"crlf", "[addon]\r\nname = \"a\"\r\n", &Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Transport: TransportStdio}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := ParseTOML([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, m, cmpopts.IgnoreUnexported(Manifest{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnsafeEnvKeyPathStops(t *testing.T) {
	m, err := ParseTOML([]byte("[addon]\nname = \"a\"\n[mcp.env]\n\"my-var\" = \"x\"\nSAFE = \"y\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{"mcp.env": true, "mcp.env.SAFE": true, "mcp.env.my-var": false} {
		if got := m.HasPath(p); got != want {
			t.Errorf("HasPath(%q) = %v, want %v", p, got, want)
		}
	}
	if got := m.Line("mcp.env.SAFE"); got != 5 {
		t.Errorf("Line(mcp.env.SAFE) = %d, want 5", got)
	}
}

func TestRegistryFileRefuses(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []where
	}{
		{"not an object", `[]`, []where{{"", 0}}},
		{"no addons", `{"registry_version":1}`, []where{{"addons", 0}}},
		{"addons not an array", `{"addons":{}}`, []where{{"addons", 1}}},
		{"unknown version", `{"registry_version":2,"addons":[]}`, []where{{"registry_version", 1}}},
		{"unknown key", `{"addons":[],"extra":1}`, []where{{"extra", 1}}},
		{"bad entries together", "{\"addons\":[\n{\"addon\":{\"name\":\"ok\"}},\n{\"addon\":{\"name\":\"Bad\"}},\n{\"addon\":{\"name\":\"x\"},\"mcp\":{\"comand\":\"x\"}}\n]}",
			[]where{{"addons[1].addon.name", 3}, {"addons[2].mcp.comand", 4}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, err := ParseRegistryFile([]byte(c.in))
			var ve *registry.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, %v; want a *registry.ValidationError", ms, err)
			}
			if ms != nil {
				t.Errorf("returned manifests with an error")
			}
			got := make([]where, len(ve.Fields))
			for i, f := range ve.Fields {
				got[i] = where{f.Path, f.Line}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestErrorsAreCapped(t *testing.T) {
	doc := okHead + "[mcp]\nargs = [" + strings.Repeat("1,", 2*MaxErrors) + "]\n"
	_, err := ParseTOML([]byte(doc))
	var ve *registry.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	if got := len(ve.Fields); got != MaxErrors {
		t.Errorf("got %d field errors, want %d", got, MaxErrors)
	}
	if last := ve.Fields[len(ve.Fields)-1].Message; !strings.Contains(last, "more errors") {
		t.Errorf("last message %q does not summarise the rest", last)
	}
}

func TestValidateBuiltManifest(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *Manifest
		want []where
	}{
		{"nil", nil, []where{{"", 0}}},
		{"ok", &Manifest{Addon: Meta{Name: "a"}}, nil},
		{"bad enums", &Manifest{Addon: Meta{Name: "a"}, MCP: MCP{Transport: "grpc"},
			Capabilities: &Capabilities{Network: "some", Filesystem: FilesystemReadOnly, Exec: ExecNone, ExecAllow: []string{"git"}},
			Pricing:      &Pricing{Model: "free", PriceCents: -5}},
			[]where{{"capabilities.exec", 0}, {"capabilities.network", 0}, {"mcp.transport", 0}, {"pricing.model", 0}, {"pricing.price_cents", 0}}},
		{"empty capabilities enums", &Manifest{Addon: Meta{Name: "a"}, Capabilities: &Capabilities{}},
			[]where{{"capabilities.exec", 0}, {"capabilities.filesystem", 0}, {"capabilities.network", 0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(c.m)
			if c.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ve *registry.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v", err)
			}
			got := make([]where, len(ve.Fields))
			for i, f := range ve.Fields {
				got[i] = where{f.Path, f.Line}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestQuietMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"expected '.' or ']' to end table name, but got '\\n' instead", "expected '.' or ']' to end table name, but got '?n' instead"},
		{"Key 'abc' has already been defined.", "Key '...' has already been defined."},
		{"bare value 'ab' found", "bare value '...' found"},
		{"unclosed 'secret value", "unclosed ..."},
		{"a <b> & `c` $d \x1b[2J \u202e", "a ?b? ? ?c? ?d ?[2J ???"},
		{strings.Repeat("x", 300), strings.Repeat("x", 160)},
	} {
		if got := quietMessage(c.in); got != c.want {
			t.Errorf("quietMessage(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseJSONLinesAndPaths(t *testing.T) {
	doc := `{
  "addon": {
    "name": "j",
    "keywords": ["a",
      "b"]
  },
  "mcp": {
    "command": "npx",
    "args": [
      "-y",
      "pkg@1.0.0"
    ],
    "env": {"API_KEY": "x", "odd-key": "y"}
  },
  "capabilities": {"exec": "full"}
}`
	m, err := ParseJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"addon": 2, "addon.name": 3, "addon.keywords[0]": 4, "addon.keywords[1]": 5,
		"mcp": 7, "mcp.args": 9, "mcp.args[0]": 10, "mcp.args[1]": 11,
		"mcp.env": 13, "mcp.env.API_KEY": 13, "capabilities": 15, "capabilities.exec": 15,
	}
	got := map[string]int{}
	for p := range want {
		got[p] = m.Line(p)
		if !m.HasPath(p) {
			t.Errorf("HasPath(%q) = false", p)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if m.HasPath("mcp.env.odd-key") {
		t.Errorf("an unprintable env key has a path")
	}
	wantCaps := &Capabilities{Network: NetworkNone, Filesystem: FilesystemReadOnly, Env: []string{}, Exec: ExecFull}
	if diff := cmp.Diff(wantCaps, m.Capabilities); diff != "" {
		t.Errorf("capabilities (-want +got):\n%s", diff)
	}
}

// TestParseAcceptsShownText: text that safetext lets through is accepted,
// emoji sequences joined by U+200D included.
func TestParseAcceptsShownText(t *testing.T) {
	for _, s := range []string{"Zürich 東京 café", "family 👨\\u200D👩\\u200D👧", "❤\\uFE0F\\u200D🔥", "a\\u00A0b", "é (e\\u0301)"} {
		if _, err := ParseTOML([]byte(okHead + "display_name = \"" + s + "\"\n")); err != nil {
			t.Errorf("display_name %q refused: %v", s, err)
		}
	}
}

// TestListElementPaths checks that the elements of a list written on its
// first line, which the position scanner does not record one by one, still
// have their path and line, and that no other index passes for one.
func TestListElementPaths(t *testing.T) {
	m, err := ParseTOML([]byte("[addon]\nname = \"a\"\nkeywords = [\"x\", \"y\"]\n[mcp]\ncommand = \"c\"\nargs = [\"-y\", \"pkg\",\n  \"--flag\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]int{
		"addon.keywords[0]": 3, "addon.keywords[1]": 3, "mcp.args[0]": 6, "mcp.args[1]": 6, "mcp.args[2]": 7,
		"addon.keywords[2]": 0, "mcp.args[3]": 0, "mcp.args[01]": 0, "mcp.args[+1]": 0, "mcp.args[-1]": 0,
		"mcp.args[]": 0, "mcp.argz[0]": 0, "addon.categories[0]": 0, "capabilities.env[0]": 0, "[0]": 0,
	} {
		if got := m.Line(p); got != want {
			t.Errorf("Line(%q) = %d, want %d", p, got, want)
		}
		if got := m.HasPath(p); got != (want > 0) {
			t.Errorf("HasPath(%q) = %v, want %v", p, got, want > 0)
		}
	}
}
