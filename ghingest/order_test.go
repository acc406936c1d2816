package ghingest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
)

// TestLateDeliveryPassedOver: a delivery for a head the pull request has
// moved past (GitHub delivered it late, or its job ran late) posts no
// status, leaves the summary comment as the newer head's delivery wrote it
// and ingests nothing; the delivery is done, saying why.
func TestLateDeliveryPassedOver(t *testing.T) {
	t.Parallel()
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			const newer = "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
			fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
			fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
			fake.PutFile(owner, repoName, newer, fsPath, risky("fs", "1.0.1"))
			fake.SetPullHead(owner, repoName, prNumber, owner, repoName, newer)
			in := startInstance(t, b.Open(t), instanceOpts{githubURL: fake.URL})

			sync := deliver(t, in, "pull_request", edit(t, payload(t, "pull_request.synchronize.1.json"), withPR(prNumber, newer)))
			if sync.Status != registry.DeliveryDone || len(sync.Submissions) != 1 {
				t.Fatalf("newer head: %s %q %v", sync.Status, sync.Error, sync.Submissions)
			}
			before := fake.Comments(owner, repoName, prNumber)
			late := deliver(t, in, "pull_request", payload(t, "pull_request.opened.1.json"))
			if late.Status != registry.DeliveryDone || len(late.Submissions) != 0 || !strings.Contains(late.Error, "passed over") {
				t.Errorf("late delivery: %s %q %v; want done, no submission, passed over", late.Status, late.Error, late.Submissions)
			}
			after := fake.Comments(owner, repoName, prNumber)
			if len(after) != 1 || len(before) != 1 || after[0].Body != before[0].Body {
				t.Errorf("comments before the late delivery %+v, after %+v; want the one, unchanged", before, after)
			}
			for _, st := range statuses(fake) {
				if st.SHA != newer {
					t.Errorf("status %+v posted on the superseded head", st)
				}
			}
		})
	}
}

// TestPushCreatingDefaultBranch: a push that creates the default branch
// has nothing before it to compare with, and GitHub lists at most 20 of
// its commits (and none that another branch already had): every manifest
// in the branch's tree is published, listed or not.
func TestPushCreatingDefaultBranch(t *testing.T) {
	t.Parallel()
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fake := githubfake.NewTest(t, ghToken)
			fake.PutFile(owner, repoName, pushAfter, "README.md", []byte("# Hello\n"))
			fake.PutFile(owner, repoName, pushAfter, fsPath, fixture.Clean("fs", "1.0.0"))
			fake.PutFile(owner, repoName, pushAfter, gitPath, fixture.Clean("git", "2.0.0"))
			st := b.Open(t)
			in := startInstance(t, st, instanceOpts{githubURL: fake.URL})
			for _, commits := range []int{0, 1, 25} {
				body := edit(t, payload(t, "push.event.5.json"), func(m map[string]any) {
					listed := []any{}
					for i := range commits {
						c := map[string]any{}
						for k, v := range m["commits"].([]any)[0].(map[string]any) {
							c[k] = v
						}
						c["id"] = fmt.Sprintf("%040x", i+1)
						c["added"] = []string{fmt.Sprintf("docs/%d.md", i)}
						listed = append(listed, c)
					}
					m["commits"] = listed
				})
				d := deliver(t, in, "push", body)
				if d.Status != registry.DeliveryDone || len(d.Submissions) != 2 || d.Error != "" {
					t.Errorf("created branch listing %d commits: %s %q %v; want both manifests published", commits, d.Status, d.Error, d.Submissions)
				}
			}
			for _, name := range []string{"fs", "git"} {
				if a, err := st.Addon(t.Context(), name); err != nil || a.LatestVersion == "" {
					t.Errorf("addon %s = %+v (%v), want published", name, a, err)
				}
			}
		})
	}
}
