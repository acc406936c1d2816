package assess

import "strings"

// Credentials dumped: the secrets the machine keeps for all its users
// read out of where the system keeps them — the memory of LSASS, which
// holds the signed-in users' passwords, hashes and tickets; the
// registry's SAM and SECURITY hives; a domain controller's NTDS.dit; the
// password hashes of /etc/shadow — or with the tools made for it
// (mimikatz, pypykatz, lsassy, secretsdump). An MCP server reads the
// one credential it is given; it never reads the machine's.

// dumpJudges are the programs that may dump credentials, with how to
// tell.
var dumpJudges = map[string]func(a *auditor, c invocation){
	"procdump": (*auditor).lsassDump, "procdump64": (*auditor).lsassDump, "rundll32": (*auditor).lsassDump,
	"out-minidump": (*auditor).lsassDump,
	"mimikatz":     dumpTool, "pypykatz": dumpTool, "lsassy": dumpTool, "secretsdump": dumpTool,
	"secretsdump.py": dumpTool, "impacket-secretsdump": dumpTool, "unshadow": dumpTool,
	"ntdsutil": func(a *auditor, c invocation) {
		if anyWordHas(c.args(), "ifm") {
			a.dumps(c, "copies the domain's password database (NTDS.dit)")
		}
	},
	"esentutl": func(a *auditor, c invocation) {
		if anyWordHas(c.args(), "ntds.dit") {
			a.dumps(c, "copies the domain's password database (NTDS.dit)")
		}
	},
}

// dumps records credentials that c dumps.
func (a *auditor) dumps(c invocation, what string) {
	a.add(CodeCredentialDump, c.argv[0].path, what+" with "+quoted(c.name))
}

func dumpTool(a *auditor, c invocation) {
	a.dumps(c, "runs a tool that reads the passwords, hashes and tickets the machine keeps")
}

// anyWordHas reports whether a word of args holds s, without case.
func anyWordHas(args []arg, s string) bool {
	for _, w := range args {
		if strings.Contains(strings.ToLower(w.text), s) {
			return true
		}
	}
	return false
}

// lsassDump judges procdump, rundll32 (comsvcs.dll's MiniDump) and
// Out-Minidump given LSASS, the process that holds the signed-in users'
// credentials.
func (a *auditor) lsassDump(c invocation) {
	args := c.args()
	switch c.name {
	case "rundll32":
		if !anyWordHas(args, "comsvcs") || !anyWordHas(args, "minidump") {
			return
		}
	default:
		if !anyWordHas(args, "lsass") {
			return
		}
	}
	a.dumps(c, "dumps the memory of LSASS, which holds the signed-in users' passwords, hashes and tickets,")
}
