package ghingest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
)

// TestPushDoesNotPublishAFailingVerdict: a merge is no override. The
// delivery records why the manifest was not published, and nothing is.
func TestPushDoesNotPublishAFailingVerdict(t *testing.T) {
	t.Parallel()
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fake := githubfake.NewTest(t, ghToken)
			fake.PutFile(owner, repoName, pushAfter, fsPath, risky("fs", "1.0.0"))
			st := b.Open(t)
			in := startInstance(t, st, instanceOpts{githubURL: fake.URL})
			d := deliver(t, in, "push", pushOf(t, []string{fsPath}, nil, nil))
			if d.Status != registry.DeliveryDone || len(d.Submissions) != 0 {
				t.Fatalf("delivery %s %q %v, want done with no submission", d.Status, d.Error, d.Submissions)
			}
			if !strings.Contains(d.Error, "not published: the verdict is fail (") || !strings.Contains(d.Error, "pipe_to_shell") {
				t.Errorf("delivery error = %q, want it to say the verdict blocked publication", d.Error)
			}
			if _, err := st.Addon(context.Background(), "fs"); !errors.Is(err, registry.ErrNotFound) {
				t.Errorf("addon fs: %v, want not published", err)
			}
		})
	}
}
