package workflow_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlite"
	"github.com/registryd/registryd/workflow"
)

// A submission's way through review: submitted, approved, then verified by
// two different maintainers, which renders its report again.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "registryd-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlite.Open(ctx, storage.Config{DataDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	svc := workflow.New(st, workflow.Options{})

	sam := workflow.Actor{Name: "sam", TokenID: "tok_sam", Role: registry.RoleSubmitter}
	alice := workflow.Actor{Name: "alice", Role: registry.RoleMaintainer}
	bob := workflow.Actor{Name: "bob", Role: registry.RoleMaintainer}

	manifest := []byte(`[addon]
name = "notes"
version = "1.0.0"

[mcp]
command = "/usr/local/bin/notes-server"
sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
`)
	sub, rep, created, err := svc.Submit(ctx, sam, manifest, workflow.FormatTOML, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("submitted:", sub.Status, sub.Verdict, created)

	if sub, err = svc.Approve(ctx, alice, sub.ID, "pinned binary"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("approved:", sub.Status, "by", sub.DecidedBy)

	out, err := svc.SetVerified(ctx, alice, "notes", true, "known author")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("first grant pending:", out.Pending)
	_, err = svc.SetVerified(ctx, alice, "notes", true, "again")
	fmt.Println("same maintainer again is a conflict:", errorsIsConflict(err))
	if out, err = svc.SetVerified(ctx, bob, "notes", true, "agreed"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("verified by:", out.Addon.VerifiedBy)

	now, err := st.PublishedReport(ctx, "notes", "")
	if err != nil {
		log.Fatal(err)
	}
	dec, err := report.Decode(now.Bytes)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("report tier:", dec.Tier, "- new bytes:", now.SHA256 != rep.SHA256)
	// Output:
	// submitted: pending pass true
	// approved: approved by alice
	// first grant pending: true
	// same maintainer again is a conflict: true
	// verified by: [alice bob]
	// report tier: verified - new bytes: true
}
