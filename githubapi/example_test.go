package githubapi_test

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/githubapi"
	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/webhook"
)

// Example follows what the audit worker does for one pull request: list
// its files, fetch the manifests at the head commit, post a status and keep
// one summary comment.
func Example() {
	fake := githubfake.New("ghs_example")
	defer fake.Close()
	const sha = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	fake.AddPullRequest("octo", "addons", 4,
		githubfake.File{Filename: "addons/fs/lean-ctx-addon.toml", Status: "added"},
		githubfake.File{Filename: "addons/old/lean-ctx-addon.toml", Status: "removed"},
		githubfake.File{Filename: "README.md", Status: "modified"},
	)
	fake.PutFile("octo", "addons", sha, "addons/fs/lean-ctx-addon.toml", []byte("[addon]\nname = \"fs\"\n"))

	c, err := githubapi.New(githubapi.Config{Token: "ghs_example", BaseURL: fake.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	files, err := c.PullRequestFiles(ctx, "octo", "addons", 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fetch, gone := githubapi.Select(files, func(p string) bool { return webhook.MatchGlob(webhook.DefaultManifestGlob, p) })
	for _, f := range fetch {
		b, err := c.FileContent(ctx, "octo", "addons", f.Path, sha)
		fmt.Printf("fetched %s (%d bytes, err %v)\n", f.Path, len(b), err)
	}
	fmt.Println("gone:", gone)

	err = c.SetStatus(ctx, "octo", "addons", sha, githubapi.Status{
		State:       githubapi.StateSuccess,
		Description: "pass: 1 manifest, 0 danger, 0 warn",
		TargetURL:   "https://registry.example/v1/addons/fs/reports/latest",
	})
	fmt.Println("status:", err)
	for _, body := range []string{"first summary", "updated summary"} {
		_, created, err := c.UpsertComment(ctx, "octo", "addons", 4, "<!-- registryd:audit -->", body)
		fmt.Println("comment created:", created, err)
	}
	fmt.Println("comments on the PR:", len(fake.Comments("octo", "addons", 4)))
	// Output:
	// fetched addons/fs/lean-ctx-addon.toml (20 bytes, err <nil>)
	// gone: [addons/old/lean-ctx-addon.toml]
	// status: <nil>
	// comment created: true <nil>
	// comment created: false <nil>
	// comments on the PR: 1
}
