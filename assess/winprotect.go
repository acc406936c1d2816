package assess

import "strings"

// Windows: more ways to run at logon or inside other programs, and more
// protections turned off.
//
//   - netsh add helper DLL registers a DLL netsh loads each time it runs
//     (persistence); netsh interface portproxy add forwards a port of this
//     machine, on every interface unless listenaddress says otherwise, to
//     another address (inbound_access).
//   - bcdedit /set testsigning on, nointegritychecks on and
//     disableelamdrivers yes let unsigned drivers load and early-launch
//     antimalware be skipped; fltmc unload and detach remove a file system
//     filter (Sysmon's, an antivirus's); auditpol /clear, /remove or /set
//     … :disable turns the audit policy off; fsutil usn deletejournal
//     deletes the file system's change journal: defense_evasion.
//
// The registry keys that run code (Image File Execution Options'
// Debugger, Winlogon, Command Processor's AutoRun, COM servers, LSA
// packages, print monitors, services …) are persistence locations
// (startupParts, malware.go).

// netshJudge judges netsh: the firewall (netshFirewall), helper DLLs and
// port forwarding.
func (a *auditor) netshJudge(c invocation) {
	a.netshFirewall(c)
	args := c.args()
	words := make([]string, len(args))
	for i, w := range args {
		words[i] = lower(w.text)
	}
	line := " " + strings.Join(words, " ") + " "
	switch {
	case strings.HasPrefix(line, " add helper "):
		a.add(CodePersistence, c.argv[0].path, "registers a DLL that "+quoted(c.name)+" loads each time it runs (netsh add helper)")
	case strings.Contains(line, " portproxy ") && (strings.Contains(line, " add ") || strings.Contains(line, " set ")):
		listen := ""
		for _, w := range words {
			if v, ok := strings.CutPrefix(w, "listenaddress="); ok {
				listen = v
			}
		}
		if listen == "" || !bindsLoopback(listen) {
			a.inferred.Network = true
			a.add(CodeInboundAccess, c.argv[0].path, "forwards a port of this machine to another address (netsh interface portproxy): every host that reaches this machine reaches through it")
		}
	}
}

// bcdeditOff judges bcdedit turning off the checks of what the kernel
// loads.
func (a *auditor) bcdeditOff(c invocation) {
	args := c.args()
	for i := 0; i+1 < len(args); i++ {
		k, v := lower(args[i].text), lower(args[i+1].text)
		switch {
		case (k == "testsigning" || k == "nointegritychecks") && (v == "on" || v == "yes"):
			a.evasion(c, "lets drivers without a valid signature load ("+k+" on)")
			return
		case k == "disableelamdrivers" && (v == "yes" || v == "on"):
			a.evasion(c, "turns early-launch antimalware off")
			return
		}
	}
}

// fltmcOff judges fltmc unload and detach: a file system filter driver,
// which security tools watch the file system through, removed.
func (a *auditor) fltmcOff(c invocation) {
	if args := c.args(); len(args) > 0 && (strings.EqualFold(args[0].text, "unload") || strings.EqualFold(args[0].text, "detach")) {
		a.evasion(c, "removes a file system filter driver, through which security tools such as Sysmon watch the machine")
	}
}

// auditpolOff judges auditpol clearing or removing the audit policy, or
// setting a category's auditing to disable.
func (a *auditor) auditpolOff(c invocation) {
	set := false
	for _, w := range c.args() {
		t := lower(w.text)
		switch {
		case t == "/clear" || t == "/remove" || t == "-clear" || t == "-remove":
			a.evasion(c, "clears the Windows audit policy")
			return
		case t == "/set" || t == "-set":
			set = true
		case set && strings.HasSuffix(t, ":disable") && (strings.HasPrefix(t, "/success") || strings.HasPrefix(t, "/failure")):
			a.evasion(c, "turns auditing off in the Windows audit policy")
			return
		}
	}
}

// fsutilOff judges fsutil usn deletejournal: the record of the file
// system's changes deleted.
func (a *auditor) fsutilOff(c invocation) {
	if hasWords(c.args(), "usn", "deletejournal") {
		a.evasion(c, "deletes the file system's change journal")
	}
}
