package assess_test

import (
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
)

// TestRules checks the rule table: ordered by code, one entry per code,
// every exported code constant present, prose present, and upstream's
// levels and blocking status kept for lean-ctx's sixteen codes.
func TestRules(t *testing.T) {
	rules := assess.Rules()
	if !sort.SliceIsSorted(rules, func(i, j int) bool { return rules[i].Code < rules[j].Code }) {
		t.Errorf("Rules() is not ordered by code")
	}
	seen := map[string]registry.Rule{}
	for _, r := range rules {
		if _, dup := seen[r.Code]; dup {
			t.Errorf("code %s appears twice", r.Code)
		}
		seen[r.Code] = r
		if r.Description == "" || r.Remedy == "" {
			t.Errorf("rule %s lacks a description or remedy", r.Code)
		}
		if r.Level < registry.LevelInfo || r.Level > registry.LevelDanger {
			t.Errorf("rule %s has level %v", r.Code, r.Level)
		}
	}
	type lb struct {
		Level    registry.Level
		Blocking bool
	}
	want := map[string]lb{
		// lean-ctx's codes, levels and BLOCKING_CODES.
		"remote_endpoint":        {registry.LevelDanger, false},
		"insecure_url":           {registry.LevelDanger, true},
		"request_headers":        {registry.LevelWarn, false},
		"shell_exec":             {registry.LevelDanger, true},
		"fetch_exec":             {registry.LevelDanger, true},
		"shell_meta":             {registry.LevelWarn, false},
		"unpinned":               {registry.LevelWarn, false},
		"child_env":              {registry.LevelInfo, false},
		"cap_net_underdeclared":  {registry.LevelDanger, true},
		"cap_exec_underdeclared": {registry.LevelDanger, true},
		"cap_net_overdeclared":   {registry.LevelInfo, false},
		"cap_exec_overdeclared":  {registry.LevelInfo, false},
		"pipe_to_shell":          {registry.LevelDanger, true},
		"obfuscated_exec":        {registry.LevelDanger, true},
		"persistence":            {registry.LevelDanger, true},
		"encoded_blob":           {registry.LevelWarn, false},
		// registryd's own.
		"forbidden_env":         {registry.LevelDanger, true},
		"inline_code":           {registry.LevelDanger, true},
		"unparsable_shell":      {registry.LevelWarn, true},
		"literal_secret":        {registry.LevelDanger, true},
		"privilege_escalation":  {registry.LevelDanger, true},
		"container_host_access": {registry.LevelDanger, false},
		"loopback_endpoint":     {registry.LevelInfo, false},
		"doc_placeholder":       {registry.LevelWarn, false},
		"command_line":          {registry.LevelWarn, true},
		"credential_mount":      {registry.LevelDanger, false},
		"credential_exfil":      {registry.LevelDanger, true},
		"defense_evasion":       {registry.LevelDanger, true},
		"inbound_access":        {registry.LevelDanger, true},
		"data_destruction":      {registry.LevelDanger, true},
		"cryptominer":           {registry.LevelDanger, true},
		"credential_dump":       {registry.LevelDanger, true},
		"lookalike_name":        {registry.LevelDanger, true},
	}
	got := map[string]lb{}
	for c, r := range seen {
		got[c] = lb{r.Level, r.Blocking}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rule table (-want +got):\n%s", diff)
	}
	for _, c := range []string{assess.CodeRemoteEndpoint, assess.CodeInsecureURL, assess.CodeRequestHeaders,
		assess.CodeShellExec, assess.CodeFetchExec, assess.CodeShellMeta, assess.CodeUnpinned, assess.CodeChildEnv,
		assess.CodeCapNetUnderdeclared, assess.CodeCapExecUnderdeclared, assess.CodeCapNetOverdeclared,
		assess.CodeCapExecOverdeclared, assess.CodePipeToShell, assess.CodeObfuscatedExec, assess.CodePersistence,
		assess.CodeEncodedBlob, assess.CodeForbiddenEnv, assess.CodeInlineCode, assess.CodeUnparsableShell,
		assess.CodeLiteralSecret, assess.CodePrivilegeEscalation, assess.CodeContainerHostAccess,
		assess.CodeLoopbackEndpoint, assess.CodeDocPlaceholder, assess.CodeCommandLine,
		assess.CodeCredentialMount, assess.CodeCredentialExfil, assess.CodeDefenseEvasion,
		assess.CodeInboundAccess, assess.CodeDataDestruction, assess.CodeCryptominer,
		assess.CodeCredentialDump, assess.CodeLookalikeName} {
		if _, ok := assess.RuleFor(c); !ok {
			t.Errorf("code constant %s has no rule", c)
		}
	}
	rules[0].Code = "mutated"
	if assess.Rules()[0].Code == "mutated" {
		t.Errorf("Rules() returned shared storage")
	}
}

func TestVerdict(t *testing.T) {
	f := func(level registry.Level, code string) registry.Finding {
		return registry.Finding{Level: level, Code: code, Path: "mcp", Message: "m"}
	}
	all := func(int) bool { return true }
	for _, tc := range []struct {
		name     string
		findings []registry.Finding
		counted  func(int) bool
		want     registry.Verdict
	}{
		{"none", nil, nil, registry.VerdictPass},
		{"info only", []registry.Finding{f(registry.LevelInfo, "child_env")}, nil, registry.VerdictPass},
		{"warn", []registry.Finding{f(registry.LevelWarn, "unpinned")}, all, registry.VerdictReview},
		{"danger, not blocking", []registry.Finding{f(registry.LevelDanger, "remote_endpoint")}, nil, registry.VerdictReview},
		{"blocking", []registry.Finding{f(registry.LevelDanger, "shell_exec"), f(registry.LevelInfo, "child_env")}, nil, registry.VerdictFail},
		{"blocking warn", []registry.Finding{f(registry.LevelWarn, "unparsable_shell")}, nil, registry.VerdictFail},
		{"blocking suppressed", []registry.Finding{f(registry.LevelDanger, "shell_exec"), f(registry.LevelWarn, "unpinned")},
			func(i int) bool { return i != 0 }, registry.VerdictReview},
		{"everything suppressed", []registry.Finding{f(registry.LevelDanger, "shell_exec")}, func(int) bool { return false }, registry.VerdictPass},
		{"unknown code never blocks", []registry.Finding{f(registry.LevelDanger, "retired_code")}, nil, registry.VerdictReview},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := assess.Verdict(tc.findings, tc.counted); got != tc.want {
				t.Errorf("Verdict = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestPathsExist audits every conformance vector that parses and checks
// that each finding's path is a field of the parsed manifest.
func TestPathsExist(t *testing.T) {
	for _, v := range loadVectors(t) {
		m, err := parseVector(v)
		if err != nil {
			continue
		}
		for _, f := range assess.Audit(m).Findings {
			if !m.HasPath(f.Path) {
				t.Errorf("%s: finding %s has path %q, which the manifest does not have", v.ID, f.Code, f.Path)
			}
		}
	}
}

// TestLimitsDocumented keeps the analysis limits in docs/limits.md and the
// constants in step.
func TestLimitsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"maxScriptBytes": assess.MaxScriptBytes, "maxNodes": assess.MaxNodes,
		"maxNesting": assess.MaxNesting, "maxDepth": assess.MaxDepth, "maxPeel": assess.MaxPeel, "maxTrials": assess.MaxTrials,
		"maxVarBytes": assess.MaxVarBytes, "maxExpandedBytes": assess.MaxExpanded,
		"maxBraceWords": assess.MaxBraceWords, "maxBraceGroups": assess.MaxBraceGroups}
	got := map[string]int{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(max\\w+)` \\| (\\d+) \\|").FindAllSubmatch(b, -1) {
		n, err := strconv.Atoi(string(m[2]))
		if err != nil {
			t.Fatal(err)
		}
		got[string(m[1])] = n
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/limits.md (-code +doc):\n%s", diff)
	}
}

// TestSelectorAdvice holds the fix text of forbidden_env, as GET /v1/rules
// serves it, and the finding for a credential selector to the advice that
// makes such a manifest installable: remove the variable, the server reads
// the user's own profile or file from the user's environment.
func TestSelectorAdvice(t *testing.T) {
	r, ok := assess.RuleFor(assess.CodeForbiddenEnv)
	if !ok {
		t.Fatal("no forbidden_env rule")
	}
	if !r.Blocking {
		t.Errorf("forbidden_env is not blocking; the host refuses a declared selector, so a manifest that sets one does not install")
	}
	for _, want := range []string{"AWS_PROFILE", "KUBECONFIG", "GOOGLE_APPLICATION_CREDENTIALS", "leave it out", "the user's own profile or file from the user's environment"} {
		if !strings.Contains(r.Remedy, want) {
			t.Errorf("forbidden_env remedy %q does not say %q", r.Remedy, want)
		}
	}
	for _, name := range []string{"AWS_PROFILE", "KUBECONFIG", "GOOGLE_APPLICATION_CREDENTIALS"} {
		res := assess.Audit(withEnv(stdio("my-mcp"), name, "x"))
		found := false
		for _, f := range res.Findings {
			if f.Code == assess.CodeForbiddenEnv && f.Path == "mcp.env."+name {
				found = true
				if !strings.Contains(f.Message, "remove it") || !strings.Contains(f.Message, "user's environment") {
					t.Errorf("%s: message %q does not say to remove it", name, f.Message)
				}
			}
		}
		if !found || res.Verdict() != registry.VerdictFail {
			t.Errorf("%s: forbidden_env found %v, verdict %s; want a blocking finding", name, found, res.Verdict())
		}
	}
}
