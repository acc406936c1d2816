package transparency

// AppendEnvelope is appendEnvelope, for the tests that check it against
// the generic canonicalizer.
var AppendEnvelope = appendEnvelope
