package loadtest

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
)

// SubmitName returns the addon name of submission n of run runID:
// "load-<runID>-<n>", a valid addon name for any run id Config accepts.
func SubmitName(runID string, n int64) string {
	return "load-" + runID + "-" + strconv.FormatInt(n, 10)
}

// SubmitManifest returns the TOML manifest ModeSubmit sends as submission n
// of run runID. It is a typical stdio wiring (a pinned npx package, one
// passed-through variable, declared capabilities) whose audit finds
// something to report; only the addon name differs between submissions, so
// every one is a new addon and a real insert.
func SubmitManifest(runID string, n int64) []byte {
	b := make([]byte, 0, len(manifestHead)+len(manifestTail)+40)
	b = append(b, manifestHead...)
	b = append(b, SubmitName(runID, n)...)
	b = append(b, manifestTail...)
	return b
}

const manifestHead = `[addon]
name = "`

const manifestTail = `"
display_name = "Load test addon"
version = "1.4.2"
description = "Reads issues and pull requests of a code forge over its REST API."
author = "Load Generator"
homepage = "https://example.org/forge-mcp"
license = "MIT"
categories = ["developer-tools"]
keywords = ["issues", "pull-requests"]

[mcp]
transport = "stdio"
command = "npx"
args = ["-y", "@example/forge-mcp@1.4.2", "--read-only"]
env = { FORGE_TOKEN = "${FORGE_TOKEN}" }

[capabilities]
network = "full"
filesystem = "read_only"
env = ["FORGE_TOKEN"]
exec = "none"
`

// randomRunID returns 8 random lower-case hex digits.
func randomRunID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
