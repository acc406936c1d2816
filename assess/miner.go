package assess

import "strings"

// Cryptocurrency mining: a miner run on the user's machine (by its
// program, or as a container image), or a connection to a mining pool
// (a stratum URL) anywhere in the wiring. The miner spends the user's
// processor and power for whoever holds the wallet; an MCP server has no
// use for one.

// miners are the programs (and the last part of container images) that
// mine cryptocurrency.
var miners = set("xmrig", "xmrig-cuda", "xmrig-proxy", "xmr-stak", "xmr-stak-rx", "xmr-stak-cpu", "cpuminer",
	"cpuminer-opt", "cpuminer-multi", "minerd", "t-rex", "nbminer", "lolminer", "ethminer", "phoenixminer",
	"nanominer", "cgminer", "bfgminer", "srbminer-multi", "teamredminer", "ccminer", "claymore", "xmrminer",
	"hellminer", "rigel", "bzminer", "onezerominer", "wildrig-multi", "gminer")

// minerJudges judges every miner's program as one (sideTables).
var minerJudges = func() map[string]func(a *auditor, c invocation) {
	m := make(map[string]func(a *auditor, c invocation), len(miners))
	for name := range miners {
		m[name] = (*auditor).mines
	}
	return m
}()

// mines records a miner that c runs.
func (a *auditor) mines(c invocation) {
	a.inferred.Network = true
	a.add(CodeCryptominer, c.argv[0].path, "runs "+quoted(c.name)+", a cryptocurrency miner")
}

// minerImage reports a container image of a miner (xmrig/xmrig:6,
// metal3d/xmrig): the last part of its repository, without tag or
// digest, is a miner's name.
func (a *auditor) minerImage(img arg) {
	ref := strings.ToLower(strings.TrimSpace(img.text))
	if at := strings.IndexByte(ref, '@'); at >= 0 {
		ref = ref[:at]
	}
	ref = ref[strings.LastIndexByte(ref, '/')+1:]
	if colon := strings.IndexByte(ref, ':'); colon >= 0 {
		ref = ref[:colon]
	}
	if miners[ref] {
		a.add(CodeCryptominer, img.path, "runs the container image "+quoted(img.text)+", a cryptocurrency miner")
	}
}

// stratum reports a mining pool's address (stratum+tcp://, stratum+ssl://,
// stratum2+tcp:// …, in any case) in the text s, which the wiring passes
// on: the scheme before the first "://" in s.
func (a *auditor) stratum(s, path string) {
	i := strings.Index(s, "://")
	if i < len("stratum") {
		return
	}
	j := i
	for j > 0 && (isLetter(s[j-1]) || isDigit(s[j-1]) || s[j-1] == '+' || s[j-1] == '-' || s[j-1] == '.') {
		j--
	}
	scheme := strings.ToLower(s[j:i])
	name, _, _ := strings.Cut(scheme, "+")
	if name == "stratum" || name == "stratum1" || name == "stratum2" {
		a.inferred.Network = true
		a.add(CodeCryptominer, path, "connects to a cryptocurrency mining pool (a stratum address)")
	}
}
