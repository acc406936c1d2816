package assess

import (
	"regexp"
	"strings"
)

// PowerShell's package commands: Install-Module, Install-Script,
// Install-PSResource, Save-…, Update-… and Install-Package fetch modules
// and scripts from the PowerShell Gallery (or another NuGet feed) when the
// server starts. Anyone can publish there, as on npm: what is installed
// must be an exact version.

// psVersionParams are the parameters that name an exact version:
// -RequiredVersion (PowerShellGet, PackageManagement) and -Version
// (PSResourceGet, where a bare version or [1.2.3] is the exact one).
var psVersionParams = []string{"-requiredversion", "-version"}

// psGalleryValues are their parameters that take a value, besides -Name.
var psGalleryValues = []string{"-repository", "-source", "-scope", "-credential", "-proxy", "-proxycredential",
	"-minimumversion", "-maximumversion", "-path", "-literalpath", "-providername", "-destination", "-inputobject"}

// psExactVersion matches an exact version as the PowerShell Gallery's
// commands read one: 1.2.3, 1.2.3.4, 1.2.3-beta1, or [1.2.3].
var psExactVersion = regexp.MustCompile(`^\[?\d+(\.\d+){1,3}(-[0-9A-Za-z.]+)?\]?$`)

// psParam returns which of names the parameter word t abbreviates
// (PowerShell accepts any unambiguous prefix of three letters or more
// here, and -Name:value), and the value joined to it.
func psParam(t string, names []string) (name, val string, ok bool) {
	if len(t) < 2 || t[0] != '-' {
		return "", "", false
	}
	p, _, _ := strings.Cut(lower(t), ":")
	if len(p) < 3 {
		return "", "", false
	}
	for _, n := range names {
		if strings.HasPrefix(n, p) {
			return n, t[min(len(t), len(p)+1):], true
		}
	}
	return "", "", false
}

// psGallery judges a PowerShell package command: it uses the network, and
// each module or script it names must come at an exact version. Messages
// name the command as the script spells it.
func (a *auditor) psGallery(c invocation) cmdInfo {
	a.inferred.Network = true
	args := c.args()
	var names []arg
	exact := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if _, val, ok := psParam(t, psVersionParams); ok {
			if val == "" && i+1 < len(args) {
				i++
				val = args[i].text
			}
			exact = psExactVersion.MatchString(strings.TrimSpace(val))
			continue
		}
		if _, val, ok := psParam(t, []string{"-name"}); ok {
			if val != "" {
				names = append(names, arg{text: val, path: args[i].path, lit: args[i].lit})
			} else if i+1 < len(args) {
				i++
				names = append(names, args[i])
			}
			continue
		}
		if _, val, ok := psParam(t, psGalleryValues); ok {
			if val == "" {
				i++
			}
			continue
		}
		if strings.HasPrefix(t, "-") {
			continue // a switch: -Force, -AllowClobber …
		}
		names = append(names, args[i])
	}
	if exact {
		return cmdInfo{name: c.name}
	}
	for _, n := range names {
		if !n.lit || strings.TrimSpace(n.text) == "" {
			continue
		}
		a.add(CodeUnpinned, n.path, unpinnedMessage(c.argv[0].text, "installs", n.text))
	}
	return cmdInfo{name: c.name}
}

// psAddType matches Add-Type given source code to compile (-TypeDefinition,
// -MemberDefinition, or the code as its first argument), in a script's
// lower-case text; Add-Type -AssemblyName and -Path load what is there.
var psAddType = regexp.MustCompile(`\badd-type\s+(?:-typedefinition\b|-memberdefinition\b|-td\b|@?['"])`)
