package assess

import "strings"

// Credentials dumped: the secrets the machine keeps for all its users
// read out of where the system keeps them — the memory of LSASS, which
// holds the signed-in users' passwords, hashes and tickets; the
// registry's SAM and SECURITY hives; a domain controller's NTDS.dit; the
// password hashes of /etc/shadow (also through getent shadow, or copied),
// macOS's ShadowHashData (dscl) — or with the tools made for it (mimikatz,
// pypykatz, lsassy, secretsdump, LaZagne, mimipenguin). An MCP server reads the
// one credential it is given; it never reads the machine's.

// dumpJudges are the programs that may dump credentials, with how to
// tell.
var dumpJudges = map[string]func(a *auditor, c invocation){
	"procdump": (*auditor).lsassDump, "procdump64": (*auditor).lsassDump, "rundll32": (*auditor).lsassDump,
	"out-minidump": (*auditor).lsassDump,
	"mimikatz":     dumpTool, "pypykatz": dumpTool, "lsassy": dumpTool, "secretsdump": dumpTool,
	"secretsdump.py": dumpTool, "impacket-secretsdump": dumpTool, "unshadow": dumpTool,
	"lazagne": dumpTool, "mimipenguin": dumpTool, "mimipenguin.sh": dumpTool, "mimipenguin.py": dumpTool,
	"ntdsutil": func(a *auditor, c invocation) {
		if anyWordHas(c.args(), "ifm") {
			a.dumps(c, "copies the domain's password database (NTDS.dit)")
		}
	},
	"esentutl": func(a *auditor, c invocation) {
		switch {
		case anyWordHas(c.args(), "ntds.dit"):
			a.dumps(c, "copies the domain's password database (NTDS.dit)")
		case anyWordHas(c.args(), `config\sam`) || anyWordHas(c.args(), "config/sam") ||
			anyWordHas(c.args(), `config\security`) || anyWordHas(c.args(), "config/security"):
			a.dumps(c, "copies the registry hive that holds the machine's password hashes")
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

// getentShadow judges getent shadow (and gshadow): it prints the
// password hashes /etc/shadow holds.
func (a *auditor) getentShadow(c invocation, info *cmdInfo) {
	if args := c.args(); len(args) > 0 && (args[0].text == "shadow" || args[0].text == "gshadow") {
		a.dumps(c, "reads "+passwordHashes)
		info.secrets = passwordHashes
	}
}

// dsclShadow judges dscl reading ShadowHashData, where macOS keeps a
// user's password hash (dscl . -read /Users/NAME ShadowHashData).
func (a *auditor) dsclShadow(c invocation, info *cmdInfo) {
	reads := false
	for _, w := range c.args() {
		switch strings.ToLower(strings.TrimLeft(w.text, "-")) {
		case "read", "readall", "readpl":
			reads = true
		case "shadowhashdata", "dsattrtypenative:shadowhashdata":
			if reads {
				a.dumps(c, "reads "+passwordHashes)
				info.secrets = passwordHashes
				return
			}
		}
	}
}
