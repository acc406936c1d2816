package assess

import (
	"encoding/json"
	"strings"
)

// A Kubernetes pod spec given on a command line, as JSON: `kubectl run
// --overrides=JSON` (merged into the pod kubectl makes) and ToolHive's
// `thv run --k8s-pod-patch=JSON` (a patch of the pod template of its
// Kubernetes runtime). What gives the pod its node is judged wherever it
// stands in the document (spec, template.spec, a container of either):
// hostPID, hostNetwork or hostIPC set to true, a container's
// securityContext privileged, a capability that reaches the node added,
// a hostPath volume of a location that hands over the node or the user's
// credentials (the mount checks of docker run -v). A value that is not
// JSON is refused by both tools: nothing runs, and nothing is reported.

// podSpecDepth bounds how deep into a pod spec the judge looks; a real
// spec is less than a dozen levels deep.
const podSpecDepth = 32

// podSpec judges the pod spec w holds, given by who (`kubectl run
// --overrides`).
func (a *auditor) podSpec(w arg, who string, depth int) {
	if !w.lit || !strings.Contains(w.text, "{") {
		return
	}
	var doc any
	if json.Unmarshal([]byte(w.text), &doc) != nil {
		return
	}
	seen := map[string]bool{} // one finding per kind of access
	report := func(code, what string) {
		if !seen[code+what] {
			seen[code+what] = true
			a.add(code, w.path, "the pod spec given to "+quoted(who)+" "+what)
		}
	}
	var walk func(v any, level int)
	walk = func(v any, level int) {
		if level > podSpecDepth {
			return
		}
		switch t := v.(type) {
		case []any:
			for _, item := range t {
				walk(item, level+1)
			}
		case map[string]any:
			for k, item := range t {
				switch k {
				case "hostPID", "hostNetwork", "hostIPC":
					if item == true {
						report(CodeContainerHostAccess, "shares the node's "+strings.ToLower(strings.TrimPrefix(k, "host"))+" namespace with the pod ("+k+"), which reaches the node")
					}
				case "privileged":
					if item == true {
						report(CodeContainerHostAccess, "runs a privileged container, which controls the node")
					}
				case "add":
					caps, _ := item.([]any)
					for _, c := range caps {
						if s, ok := c.(string); ok && hostCapabilities[strings.TrimPrefix(strings.ToLower(s), "cap_")] {
							report(CodeContainerHostAccess, "grants a container a capability that reaches the node ("+safeText(s, 40)+")")
						}
					}
				case "hostPath":
					if hp, ok := item.(map[string]any); ok {
						if p, ok := hp["path"].(string); ok && p != "" {
							pull := true
							a.containerOption("-v", arg{text: p + ":/mnt", path: w.path, lit: true}, &pull, depth)
						}
					}
				}
				walk(item, level+1)
			}
		}
	}
	walk(doc, 0)
}
