package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/registryd/registryd/client"
	"github.com/registryd/registryd/client/internal/testregistry"
	"github.com/registryd/registryd/registry"
)

// exampleRegistry starts a registry in memory with two addons: demo, a
// verified addon that passes, and fetcher, a community addon that fails.
func exampleRegistry() (reg *testregistry.Registry, stateDir string) {
	reg, err := testregistry.New("registry.example")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := reg.Publish(testregistry.Report("demo", "1.0.0", []byte("demo manifest"), registry.TierVerified, registry.VerdictPass)); err != nil {
		log.Fatal(err)
	}
	if _, err := reg.Publish(testregistry.Report("fetcher", "0.3.0", []byte("fetcher manifest"), registry.TierCommunity, registry.VerdictFail, danger)); err != nil {
		log.Fatal(err)
	}
	stateDir, err = os.MkdirTemp("", "registryd-check-example")
	if err != nil {
		log.Fatal(err)
	}
	return reg, stateDir
}

// exampleClient is a client of reg that pins its key.
func exampleClient(reg *testregistry.Registry, stateDir string) *client.Client {
	c, err := client.New(client.Options{Registry: reg.URL, Keys: []string{reg.VerifierKey()}, StateDir: stateDir})
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// Check an addon before installing it: fetch its signed report, verify it
// against the pinned key and the log, and decide under the default policy.
func ExampleClient_Check() {
	reg, stateDir := exampleRegistry()
	defer reg.Close()
	defer os.RemoveAll(stateDir)

	c, err := client.New(client.Options{
		Registry: reg.URL,
		Keys:     []string{reg.VerifierKey()}, // NAME+hash+base64, pinned
		StateDir: stateDir,                    // usually under os.UserConfigDir()
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"demo@1.0.0", "fetcher"} {
		ref, err := client.ParseRef(name)
		if err != nil {
			log.Fatal(err)
		}
		checked, err := c.Check(context.Background(), ref, client.DefaultPolicy)
		if err != nil {
			fmt.Println(name, "could not be verified:", err)
			continue
		}
		fmt.Println(name, "allowed:", checked.Decision.Allowed)
		for _, r := range checked.Decision.Reasons {
			fmt.Println("  ", r)
		}
	}
	// Output:
	// demo@1.0.0 allowed: true
	// fetcher allowed: false
	//    the verdict is fail
	//    danger fetch_exec at mcp.args[1] (blocking): downloads and runs code
}

// Verify the report of a manifest file by its digest, and read what it
// says. The manifest must be exactly the bytes that were published.
func ExampleClient_Verify() {
	reg, stateDir := exampleRegistry()
	defer reg.Close()
	defer os.RemoveAll(stateDir)
	c := exampleClient(reg, stateDir)

	v, err := c.Verify(context.Background(), client.ManifestRef([]byte("demo manifest")))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s@%s: %s, %s, leaf %d of %d\n", v.Report.Addon.Name, v.Report.Addon.Version,
		v.Report.Verdict, v.Report.Tier, v.LeafIndex, v.Checkpoint.Size)

	_, err = c.Verify(context.Background(), client.ManifestRef([]byte("a manifest nobody published")))
	fmt.Println(errors.Is(err, client.ErrNotPublished))
	// Output:
	// demo@1.0.0: pass, verified, leaf 0 of 2
	// true
}

// A registry that rolls its log back is refused, whatever it serves.
func ExampleErrInconsistent() {
	reg, stateDir := exampleRegistry()
	defer reg.Close()
	defer os.RemoveAll(stateDir)
	c := exampleClient(reg, stateDir)
	ref := client.Ref{Name: "demo"}
	if _, err := c.Verify(context.Background(), ref); err != nil {
		log.Fatal(err)
	}

	reg.RollBack(1) // as if restored from an older backup
	_, err := c.Verify(context.Background(), ref)
	fmt.Println(errors.Is(err, client.ErrUnverified), errors.Is(err, client.ErrInconsistent))
	fmt.Println(err)
	// Output:
	// true true
	// the log is not consistent with the one this client saw: the log's size is 1, smaller than the 2 this client saw: a rollback
}

func ExampleParsePolicy() {
	p, err := client.ParsePolicy("verified_only")
	fmt.Println(p, err)
	_, err = client.ParsePolicy("lenient")
	fmt.Println(err)
	// Output:
	// verified_only <nil>
	// unknown policy: want one of open, block_fail, block_risky, verified_only
}
