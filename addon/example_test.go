package addon_test

import (
	"errors"
	"fmt"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
)

func ExampleParseTOML() {
	m, err := addon.ParseTOML([]byte(`
[addon]
name = "repomix"

[mcp]
command = "npx"
args = ["-y", "repomix@1.15.0", "--mcp"]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Addon.Name, m.MCP.Transport, m.MCP.Command, m.MCP.Args)
	fmt.Println("mcp.args[1] is on line", m.Line("mcp.args[1]"))

	// A typo is an error naming the field, not a silently dropped key.
	_, err = addon.ParseTOML([]byte("[addon]\nname = \"x\"\n[mcp]\ncomand = \"npx\"\n"))
	var ve *registry.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fmt.Println(f)
		}
	}
	// Output:
	// repomix stdio npx [-y repomix@1.15.0 --mcp]
	// mcp.args[1] is on line 7
	// mcp.comand (line 4): unknown key
}
