package githubapi

// Select splits the changed files of a pull request or comparison into the
// manifests to fetch and the manifest paths that went away, for the paths
// match accepts (for example webhook.MatchGlob with the manifest glob).
//
// fetch holds every matching file that exists at the head: added,
// modified, renamed, copied or changed (FileUnchanged is skipped: nothing
// to audit). gone holds the matching paths that no longer exist: removed
// files, and the old path of a file renamed away from it (whether or not
// the new path matches). Both keep the input order.
func Select(files []File, match func(path string) bool) (fetch []File, gone []string) {
	fetch, gone = []File{}, []string{}
	for _, f := range files {
		switch {
		case f.Status == FileRemoved:
			if match(f.Path) {
				gone = append(gone, f.Path)
			}
			continue
		case f.Status == FileRenamed && f.PrevPath != "" && f.PrevPath != f.Path && match(f.PrevPath):
			gone = append(gone, f.PrevPath)
		}
		if f.Status != FileUnchanged && match(f.Path) {
			fetch = append(fetch, f)
		}
	}
	return fetch, gone
}
