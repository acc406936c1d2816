package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/registryd/registryd/internal/mcpfixture"
	"github.com/registryd/registryd/internal/sharedtest"
	"github.com/registryd/registryd/mcpimport"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/workflow"
)

func TestImportMCPRegistryCommand(t *testing.T) {
	ctx := context.Background()
	body := mcpfixture.Recorded(t, "list-limit100").Body
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer up.Close()
	getenv := envOf(map[string]string{"REGISTRYD_DATA_DIR": t.TempDir()})
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"import", "mcp-registry", "--url", up.URL}, getenv, nil, &out, &errOut); err != nil {
		t.Fatalf("import: %v\n%s", err, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "4 servers read, 3 new submissions, 0 imported before, 1 skipped") {
		t.Errorf("stdout = %q", out.String())
	}
	if !strings.Contains(errOut.String(), "skipped io.github.domdomegg/time-mcp-nuget 1.0.8: no faithful form") {
		t.Errorf("stderr = %q, want the nuget server reported", errOut.String())
	}
	out.Reset()
	if err := run(ctx, []string{"import", "mcp-registry", "--url", up.URL}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "4 servers read, 0 new submissions, 3 imported before") {
		t.Errorf("second run: stdout = %q", out.String())
	}
}

func TestImportLeanCtxAndExport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	getenv := envOf(map[string]string{"REGISTRYD_DATA_DIR": dir})
	file := filepath.Join(sharedtest.Dir(t, "corpus"), "leanctx-addon-registry.json")
	var out bytes.Buffer
	if err := run(ctx, []string{"import", "leanctx", file}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "21 entries, 21 new submissions, 0 imported before, 0 skipped\n" {
		t.Errorf("stdout = %q", got)
	}
	// Publish one, then export.
	st, err := backend.Open(ctx, storage.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	subs, _, err := st.Submissions(ctx, storage.SubmissionFilter{Addon: "repomix"}, storage.Page{})
	if err != nil || len(subs) != 1 {
		t.Fatalf("submissions of repomix: %v, %v", subs, err)
	}
	wf := workflow.New(st, workflow.Options{})
	if _, err := wf.Approve(ctx, workflow.Actor{Name: "alice", Role: registry.RoleMaintainer}, subs[0].ID, "ok"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out.Reset()
	if err := run(ctx, []string{"export", "--format", "leanctx"}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var f struct {
		RegistryVersion int `json:"registry_version"`
		Addons          []struct {
			Addon struct{ Name, Version string } `json:"addon"`
		} `json:"addons"`
	}
	if err := json.Unmarshal(out.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	if f.RegistryVersion != 1 || len(f.Addons) != 1 || f.Addons[0].Addon.Name != "repomix" || f.Addons[0].Addon.Version != "" {
		t.Errorf("export = %s", out.Bytes())
	}
	outFile := filepath.Join(t.TempDir(), "registry.json")
	if err := run(ctx, []string{"export", "--format", "leanctx", "--out", outFile}, getenv, nil, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
}

func TestImportUsage(t *testing.T) {
	getenv := envOf(map[string]string{"REGISTRYD_DATA_DIR": t.TempDir()})
	for _, args := range [][]string{
		{"import"},
		{"import", "npm"},
		{"import", "mcp-registry"},
		{"import", "mcp-registry", "--url", "https://x", "--since", "yesterday"},
		{"import", "mcp-registry", "--url", "https://x", "extra"},
		{"import", "leanctx"},
		{"export"},
		{"export", "--format", "csv"},
	} {
		var errOut bytes.Buffer
		err := run(context.Background(), args, getenv, nil, io.Discard, &errOut)
		if exitCode(err) != 2 {
			t.Errorf("%q: exit %d (%v), want 2", args, exitCode(err), err)
		}
	}
	var out bytes.Buffer
	run(context.Background(), []string{"help"}, getenv, nil, &out, io.Discard)
	for _, c := range []string{"import", "export"} {
		if !strings.Contains(out.String(), "  "+c+" ") {
			t.Errorf("registryd --help does not list %s:\n%s", c, out.String())
		}
	}
}

// TestProgress: plain lines, one per thousand items, off a terminal; a
// bar redrawn in place on one, bouncing when the total is unknown and
// filling when it is known.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	for _, n := range []int{100, 900, 1000, 1500, 2100} {
		p.update(n, importLine(mcpimport.Progress{Seen: n}))
	}
	if got := strings.Count(b.String(), "\n"); got != 2 || strings.Contains(b.String(), "\r") {
		t.Errorf("plain progress = %q, want two lines", b.String())
	}
	b.Reset()
	p = &progress{w: &b, tty: true}
	p.update(100, importLine(mcpimport.Progress{Seen: 100, Created: 90, Skipped: 10}))
	p.update(200, importLine(mcpimport.Progress{Seen: 200, Created: 180, Skipped: 20}))
	p.done()
	if s := b.String(); strings.Count(s, "\r\x1b[K") != 3 || !strings.Contains(s, "<=>") || !strings.HasSuffix(s, "200 servers (0/s): 180 new, 0 imported before, 20 skipped\n") {
		t.Errorf("terminal progress = %q", s)
	}
	b.Reset()
	p = &progress{w: &b, tty: true, total: 400}
	p.update(100, "100/400")
	if s := b.String(); s != "\r\x1b[K[=====               ] 100/400" {
		t.Errorf("terminal progress of a known total = %q", s)
	}
}
