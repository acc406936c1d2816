package webhook_test

import (
	"fmt"

	"github.com/registryd/registryd/webhook"
)

func ExampleParse() {
	body := []byte(`{"action":"opened","number":3,
		"repository":{"full_name":"octo/addons","name":"addons","default_branch":"main","owner":{"login":"octo"}},
		"pull_request":{"number":3,"draft":false,"user":{"login":"mona"},
			"head":{"sha":"ec26c3e57ca3a959ca5aad62de7213c562f8c821","ref":"add-fs","repo":{"full_name":"mona/addons"}},
			"base":{"sha":"f95f852bd8fca8fcc58a9a2d6c842781e32a215e","ref":"main","repo":{"full_name":"octo/addons"}}},
		"sender":{"login":"mona"},"installation":{"id":42}}`)
	secret := []byte("s3cret")
	if err := webhook.Verify(body, webhook.SignatureValue(body, secret), [][]byte{secret}); err != nil {
		fmt.Println(err)
		return
	}
	e, err := webhook.Parse("application/json", body, "pull_request")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Repo, e.PR.Number, e.PR.HeadRepoFullName, e.FromFork(), e.Actionable())
	// Output: octo/addons 3 mona/addons true true
}

func ExampleVerify() {
	body := []byte(`{"zen":"Design for failure."}`)
	err := webhook.Verify(body, "sha256=0000000000000000000000000000000000000000000000000000000000000000", [][]byte{[]byte("s3cret")})
	fmt.Println(err)
	// Output: webhook signature does not match: unauthenticated
}
