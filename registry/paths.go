package registry

import "net/url"

// The API's resource paths, for every link registryd writes (response
// fields, Location headers, pages, commit statuses, comments). Each
// variable part is one escaped path segment: whatever a name, version or ID
// holds, it cannot add a segment, a query or a fragment to the link, and
// the router reads it back unchanged.

// SubmissionPath is the path of submission id.
func SubmissionPath(id string) string { return "/v1/submissions/" + PathSegment(id) }

// SubmissionReportPath is the path of submission id's report.
func SubmissionReportPath(id string) string { return SubmissionPath(id) + "/report" }

// AddonPath is the path of addon name.
func AddonPath(name string) string { return "/v1/addons/" + PathSegment(name) }

// AddonReportPath is the path of the report of addon name's latest version.
func AddonReportPath(name string) string { return AddonPath(name) + "/report" }

// AddonBadgePath is the path of addon name's SVG badge.
func AddonBadgePath(name string) string { return AddonPath(name) + "/badge.svg" }

// VersionReportPath is the path of the report of name@version.
func VersionReportPath(name, version string) string {
	return AddonPath(name) + "/versions/" + PathSegment(version) + "/report"
}

// VersionManifestPath is the path of the manifest of name@version, its
// bytes as submitted.
func VersionManifestPath(name, version string) string {
	return AddonPath(name) + "/versions/" + PathSegment(version) + "/manifest"
}

// SuppressionPath is the path of suppression id of addon name.
func SuppressionPath(name, id string) string {
	return AddonPath(name) + "/suppressions/" + PathSegment(id)
}

// PathSegment escapes s as one URL path segment: url.PathEscape, and the
// dot segments "." and ".." spelled with %2E, which clients would otherwise
// resolve away.
func PathSegment(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(s)
}

// MCPServerVersionPath is the MCP Registry API's path of version of the
// server called name (registryd's own, or an upstream registry's): the
// name's '/' is escaped, so the name stays one segment.
func MCPServerVersionPath(name, version string) string {
	return "/v0.1/servers/" + PathSegment(name) + "/versions/" + PathSegment(version)
}
