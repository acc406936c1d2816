package assess

import "strings"

// Protections turned off: the antivirus (Microsoft Defender, its
// exclusions, its service, AMSI for PowerShell), the firewall (Windows,
// ufw, firewalld, iptables and nftables flushed or opened), SELinux,
// AppArmor, the audit daemon, macOS Gatekeeper (also by removing the
// quarantine mark) and System Integrity Protection. An MCP server never needs any of
// them off; malware that means to stay turns them off first.

// evasionJudges are the programs that turn a protection off, with how to
// tell.
var evasionJudges = map[string]func(a *auditor, c invocation){
	"set-mppreference": (*auditor).defenderPreference, "add-mppreference": (*auditor).defenderPreference,
	"netsh":   (*auditor).netshJudge,
	"bcdedit": (*auditor).bcdeditOff, "fltmc": (*auditor).fltmcOff, "auditpol": (*auditor).auditpolOff,
	"fsutil":                 (*auditor).fsutilOff,
	"set-netfirewallprofile": (*auditor).firewallProfile,
	"sc":                     (*auditor).serviceOff, "stop-service": (*auditor).serviceOff,
	"set-service": (*auditor).serviceOff, "systemctl": (*auditor).serviceOff, "service": (*auditor).serviceOff,
	"setenforce": (*auditor).setenforce,
	"ufw":        (*auditor).ufwDisable,
	"iptables":   (*auditor).firewallFlush, "ip6tables": (*auditor).firewallFlush, "nft": (*auditor).firewallFlush,
	"auditctl": (*auditor).auditOff,
	"spctl":    (*auditor).gatekeeperOff,
	"xattr":    (*auditor).quarantineOff,
	"csrutil":  (*auditor).sipOff,
	"aa-teardown": func(a *auditor, c invocation) {
		a.evasion(c, "unloads every AppArmor profile")
	},
}

// evasion records a protection turned off by c.
func (a *auditor) evasion(c invocation, what string) {
	a.add(CodeDefenseEvasion, c.argv[0].path, what+" with "+quoted(c.name))
}

// defenderPreference judges Set-MpPreference and Add-MpPreference: a
// -Disable… parameter set to true turns a part of Microsoft Defender off,
// and an -Exclusion… parameter has it skip a path, a process or an
// extension. PowerShell matches parameter names without case and by any
// unambiguous prefix.
func (a *auditor) defenderPreference(c invocation) {
	args := c.args()
	for i, w := range args {
		name, val, colon := strings.Cut(lower(w.text), ":")
		switch {
		case strings.HasPrefix(name, "-exclusion"):
			a.evasion(c, "has Microsoft Defender skip what it names ("+safeText(w.text, 40)+")")
			return
		case strings.HasPrefix(name, "-disable"):
			if !colon && i+1 < len(args) {
				val = lower(args[i+1].text)
			}
			if v := strings.TrimSpace(val); v == "$false" || v == "0" || v == "false" {
				continue
			}
			a.evasion(c, "turns part of Microsoft Defender off ("+safeText(name[1:], 40)+")")
			return
		}
	}
}

// netshFirewall judges netsh advfirewall set PROFILE state off and the
// older netsh firewall set opmode disable.
func (a *auditor) netshFirewall(c invocation) {
	words := make([]string, 0, len(c.args()))
	for _, w := range c.args() {
		words = append(words, lower(w.text))
	}
	line := " " + strings.Join(words, " ") + " "
	if strings.Contains(line, " advfirewall ") && strings.Contains(line, " state off ") ||
		strings.Contains(line, " firewall ") && (strings.Contains(line, " opmode disable") || strings.Contains(line, " mode=disable")) {
		a.evasion(c, "turns the Windows firewall off")
	}
}

// firewallProfile judges Set-NetFirewallProfile -Enabled False.
func (a *auditor) firewallProfile(c invocation) {
	args := c.args()
	for i, w := range args {
		name, val, colon := strings.Cut(lower(w.text), ":")
		if !strings.HasPrefix("-enabled", name) || len(name) < 3 {
			continue
		}
		if !colon && i+1 < len(args) {
			val = lower(args[i+1].text)
		}
		if v := strings.TrimSpace(val); v == "false" || v == "$false" || v == "0" {
			a.evasion(c, "turns the Windows firewall off")
			return
		}
	}
}

// protectionServices are the services that protect the machine, by the
// name their service managers know them by, lower-cased.
var protectionServices = set("windefend", "wdnissvc", "sense", "securityhealthservice", "wscsvc", "mpssvc",
	"firewalld", "ufw", "apparmor", "auditd", "nftables", "iptables", "ip6tables", "falcon-sensor",
	"mdatp", "clamav-daemon", "clamav-freshclam")

// serviceOff judges a service manager told to stop, disable or remove a
// protection's service: sc stop|config|delete, Stop-Service,
// Set-Service -StartupType Disabled, systemctl stop|disable|mask, service
// NAME stop.
func (a *auditor) serviceOff(c invocation) {
	args := c.args()
	off, svc := false, ""
	for i, w := range args {
		t := strings.TrimSuffix(lower(w.text), ".service")
		switch {
		case protectionServices[t]:
			svc = w.text
		case strings.HasPrefix(t, "-name:") && protectionServices[t[len("-name:"):]]:
			svc = w.text[len("-name:"):]
		case t == "stop" || t == "disable" || t == "mask" || t == "delete" || t == "kill":
			off = true
		case c.name == "sc" && t == "config":
			for _, v := range args[i+1:] {
				off = off || strings.Contains(lower(v.text), "disabled")
			}
		case c.name == "set-service" && strings.Contains(t, "disabled"):
			off = true
		}
	}
	if c.name == "stop-service" {
		off = true
	}
	if off && svc != "" {
		a.evasion(c, "stops or disables the protection service "+safeText(svc, 40))
	}
}

// setenforce judges setenforce 0 (Permissive).
func (a *auditor) setenforce(c invocation) {
	if args := c.args(); len(args) > 0 && (args[0].text == "0" || strings.EqualFold(args[0].text, "permissive")) {
		a.evasion(c, "turns SELinux enforcement off")
	}
}

// ufwDisable judges ufw disable.
func (a *auditor) ufwDisable(c invocation) {
	for _, w := range c.args() {
		if w.text == "disable" {
			a.evasion(c, "turns the firewall off")
			return
		}
	}
}

// firewallFlush judges iptables -F (--flush) and a policy of ACCEPT, and
// nft flush ruleset: every rule of the firewall dropped.
func (a *auditor) firewallFlush(c invocation) {
	args := c.args()
	for i, w := range args {
		switch t := w.text; {
		case c.name == "nft" && t == "flush" && i+1 < len(args) && args[i+1].text == "ruleset",
			c.name != "nft" && (t == "-F" || t == "--flush"):
			a.evasion(c, "drops every rule of the firewall")
			return
		case c.name != "nft" && (t == "-P" || t == "--policy") && i+2 < len(args) &&
			(args[i+1].text == "INPUT" || args[i+1].text == "FORWARD") && args[i+2].text == "ACCEPT":
			a.evasion(c, "sets the firewall to let in what no rule refuses (policy ACCEPT on "+args[i+1].text+")")
			return
		}
	}
}

// auditOff judges auditctl -e 0: the kernel's audit turned off.
func (a *auditor) auditOff(c invocation) {
	args := c.args()
	for i, w := range args {
		if w.text == "-e" && i+1 < len(args) && args[i+1].text == "0" || w.text == "-e0" {
			a.evasion(c, "turns the kernel's audit off")
			return
		}
	}
}

// gatekeeperOff judges spctl --master-disable (--global-disable): macOS
// then runs any program, signed or not.
func (a *auditor) gatekeeperOff(c invocation) {
	for _, w := range c.args() {
		if w.text == "--master-disable" || w.text == "--global-disable" {
			a.evasion(c, "turns macOS Gatekeeper off")
			return
		}
	}
}

// quarantineOff judges xattr removing the quarantine mark macOS puts on
// what was downloaded (-d com.apple.quarantine, or -c, every mark): the
// program then runs without Gatekeeper's check.
func (a *auditor) quarantineOff(c invocation) {
	args := c.args()
	for i, w := range args {
		t := w.text
		if len(t) < 2 || t[0] != '-' || strings.HasPrefix(t, "--") {
			continue
		}
		if strings.ContainsRune(t, 'c') ||
			strings.ContainsRune(t, 'd') && i+1 < len(args) && args[i+1].text == "com.apple.quarantine" {
			a.evasion(c, "skips Gatekeeper's check of a download by removing its quarantine mark")
			return
		}
	}
}

// sipOff judges csrutil disable: macOS's System Integrity Protection, which
// keeps even root from changing the system, turned off.
func (a *auditor) sipOff(c invocation) {
	for _, w := range c.args() {
		if w.text == "disable" {
			a.evasion(c, "turns macOS System Integrity Protection off")
			return
		}
	}
}

// amsiMarks are the names a PowerShell script uses to switch off the
// Antimalware Scan Interface, which has the antivirus scan each script
// PowerShell runs, lower-cased.
var amsiMarks = []string{"amsiutils", "amsiinitfailed", "amsiscanbuffer", "amsicontext", "amsisession"}

// amsiBypass reports a PowerShell script that reaches into AMSI.
func (a *auditor) amsiBypass(script, path string) {
	l := lower(script)
	for _, m := range amsiMarks {
		if strings.Contains(l, m) {
			a.add(CodeDefenseEvasion, path, "reaches into AMSI ("+m+"), which has the antivirus scan each script PowerShell runs")
			return
		}
	}
}
