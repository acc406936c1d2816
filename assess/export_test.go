package assess

// The analysis limits, for the test that keeps docs/limits.md in step.
const (
	MaxScriptBytes = maxScriptBytes
	MaxNodes       = maxNodes
	MaxNesting     = maxNesting
	MaxDepth       = maxDepth
	MaxPeel        = maxPeel
	MaxTrials      = maxTrials
	MaxVarBytes    = maxVarBytes
	MaxExpanded    = maxExpandedBytes
	MaxBraceWords  = maxBraceWords
	MaxBraceGroups = maxBraceGroups
)

// KnownToken is knownToken, for its table test and fuzz target.
var KnownToken = knownToken
