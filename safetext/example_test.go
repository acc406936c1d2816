package safetext_test

import (
	"fmt"

	"github.com/registryd/registryd/safetext"
)

func ExampleCheck() {
	err := safetext.Check("npx\u202E -y tool", 0)
	fmt.Println(err)
	fmt.Println(safetext.Check("two\nlines", safetext.Lines))
	// Output:
	// contains a bidirectional control character (U+202E)
	// <nil>
}

func ExampleReplace() {
	fmt.Println(safetext.Replace("\x1b]0;pwned\x07 ok", 0, '?'))
	// Output: ?]0;pwned? ok
}
