package addon

// The size bounds of a manifest, in one place. docs/limits.md mirrors this
// table; a test keeps the two in step. Every bound is inclusive: a value of
// exactly the bound is accepted, one byte or one element more is refused.
const (
	// MaxManifestBytes bounds a whole manifest document (TOML or one JSON
	// entry). A larger input is refused before it is parsed, with a
	// *registry.ValidationError whose TooLarge is set.
	MaxManifestBytes = 256 << 10

	// MaxRegistryFileBytes bounds a whole registry file (ParseRegistryFile).
	MaxRegistryFileBytes = 8 << 20

	// MaxRegistryEntries bounds the number of addons in one registry file.
	MaxRegistryEntries = 2048

	// MaxDepth bounds the nesting of arrays and tables (inline or not) in a
	// document. The deepest legitimate manifest nests three levels
	// (`artifacts.<triple>.url`); the bound leaves room and stops a document
	// of 100 000 opening brackets before any decoder sees it.
	MaxDepth = 8

	// MaxStringBytes bounds any string value not listed below.
	MaxStringBytes = 4 << 10

	// MaxArgBytes bounds one element of mcp.args (an inline script can be
	// long, but not a program).
	MaxArgBytes = 16 << 10

	// MaxDescriptionBytes bounds addon.description.
	MaxDescriptionBytes = 2 << 10

	// MaxNameBytes bounds addon.name and each dependency name.
	MaxNameBytes = 64

	// MaxVersionBytes bounds addon.version where the registry requires it
	// (CheckVersion): a version is a path segment of the registry's URLs
	// (`/v1/addons/NAME/versions/VERSION/report`), which take at most this
	// many bytes.
	MaxVersionBytes = 64

	// MaxKeyBytes bounds every key: table keys, env and header names,
	// artifact target triples.
	MaxKeyBytes = 128

	// MaxArgs bounds the number of elements of mcp.args.
	MaxArgs = 256

	// MaxListLen bounds every other list (categories, keywords,
	// capabilities.env, capabilities.exec, install.verify).
	MaxListLen = 64

	// MaxMapEntries bounds mcp.env and mcp.headers.
	MaxMapEntries = 128

	// MaxArtifacts bounds the number of [artifacts.<triple>] tables.
	MaxArtifacts = 32

	// MaxDependencies bounds the number of [[dependencies]] entries.
	MaxDependencies = 64

	// MaxErrors bounds the field errors reported for one document; the
	// rest are summarised in one final entry.
	MaxErrors = 50
)
