package assess

import (
	"slices"
	"strings"
)

// Data destroyed: the user's home, the root of a file system or a system
// folder deleted, the user's credentials deleted or overwritten, a disk
// wiped, formatted or repartitioned, and the copies a machine keeps to
// recover from such a loss (shadow copies, backups, Time Machine
// snapshots) deleted. An MCP server keeps to its own files; none of these
// is a part of what it does.

// destroyJudges are the programs that may destroy data, with how to tell.
var destroyJudges = map[string]func(a *auditor, c invocation){
	"rm": (*auditor).removes, "rmdir": (*auditor).removes, "rd": (*auditor).removes, "del": (*auditor).removes,
	"erase": (*auditor).removes, "remove-item": (*auditor).removes, "ri": (*auditor).removes,
	"unlink": (*auditor).removes,
	"find":   (*auditor).findDeletes,
	"shred":  (*auditor).overwrites, "srm": (*auditor).overwrites, "wipe": (*auditor).overwrites,
	"dd":   (*auditor).ddDevice,
	"mkfs": (*auditor).formatsDevice, "mke2fs": (*auditor).formatsDevice, "mkswap": (*auditor).formatsDevice,
	"wipefs": (*auditor).formatsDevice, "mkfs.ext2": (*auditor).formatsDevice, "mkfs.ext3": (*auditor).formatsDevice,
	"mkfs.ext4": (*auditor).formatsDevice, "mkfs.xfs": (*auditor).formatsDevice, "mkfs.btrfs": (*auditor).formatsDevice,
	"mkfs.vfat": (*auditor).formatsDevice, "mkfs.fat": (*auditor).formatsDevice, "mkfs.ntfs": (*auditor).formatsDevice,
	"mkfs.exfat": (*auditor).formatsDevice, "mkfs.f2fs": (*auditor).formatsDevice, "blkdiscard": (*auditor).formatsDevice,
	"sgdisk": func(a *auditor, c invocation) {
		if slices.ContainsFunc(c.args(), func(w arg) bool {
			return w.text == "--zap-all" || w.text == "-Z" || w.text == "--clear" || w.text == "-o"
		}) {
			a.formatsDevice(c)
		}
	},
	"parted": func(a *auditor, c invocation) {
		if slices.ContainsFunc(c.args(), func(w arg) bool { return w.text == "mklabel" || w.text == "mktable" }) {
			a.formatsDevice(c)
		}
	},
	"diskutil": subDestroys("erases a disk", "erasedisk", "erasevolume", "zerodisk", "randomdisk", "secureerase",
		"partitiondisk", "reformat"),
	"format":        (*auditor).formatDrive,
	"format-volume": func(a *auditor, c invocation) { a.destroys(c, "formats a volume") },
	"clear-disk":    func(a *auditor, c invocation) { a.destroys(c, "erases a disk") },
	// The copies kept to recover: Windows' shadow copies, backups and
	// recovery, macOS' Time Machine.
	"vssadmin": func(a *auditor, c invocation) {
		if hasWords(c.args(), "delete", "shadows") || hasWords(c.args(), "resize", "shadowstorage") {
			a.destroys(c, "deletes the machine's shadow copies (its restore points)")
		}
	},
	"wmic": func(a *auditor, c invocation) {
		if hasWords(c.args(), "shadowcopy", "delete") {
			a.destroys(c, "deletes the machine's shadow copies (its restore points)")
		}
	},
	"wbadmin": subDestroys("deletes the machine's backups", "delete"),
	"bcdedit": func(a *auditor, c invocation) {
		if hasWords(c.args(), "recoveryenabled", "no") || hasWords(c.args(), "bootstatuspolicy", "ignoreallfailures") {
			a.destroys(c, "turns the machine's recovery at boot off")
		}
	},
	"tmutil": subDestroys("deletes or turns off the machine's Time Machine backups", "delete", "deletelocalsnapshots",
		"disable", "thinlocalsnapshots"),
}

// destroys records data that c destroys.
func (a *auditor) destroys(c invocation, what string) {
	a.add(CodeDataDestruction, c.argv[0].path, what+" with "+quoted(c.name))
}

// subDestroys judges a tool whose listed subcommands destroy data (its
// first word that is not an option, without case: diskutil eraseDisk,
// wbadmin delete catalog).
func subDestroys(what string, subs ...string) func(a *auditor, c invocation) {
	s := set(subs...)
	return func(a *auditor, c invocation) {
		for _, w := range c.args() {
			if strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "/") {
				continue
			}
			if s[lower(w.text)] {
				a.destroys(c, what)
			}
			return
		}
	}
}

// hasWords reports whether args hold first and, after it, second, without
// case (vssadmin Delete Shadows /All).
func hasWords(args []arg, first, second string) bool {
	i := slices.IndexFunc(args, func(w arg) bool { return strings.EqualFold(w.text, first) })
	return i >= 0 && slices.ContainsFunc(args[i+1:], func(w arg) bool { return strings.EqualFold(w.text, second) })
}

// precious says what deleting or overwriting the path p destroys: the
// root of a file system, a system folder, the user's home (or every
// user's), a folder or file where programs keep the user's credentials
// (as a whole: not a cache inside one), or a private SSH key; "" for any
// other path. A trailing /* or /. stands for the folder.
func precious(p string) string {
	p = cleanPath(p)
	for _, suffix := range []string{"/*", "/.", "/**", "/*.*"} {
		p = strings.TrimSuffix(p, suffix)
	}
	lp := strings.ToLower(p)
	switch {
	case p == "" || p == "/" || len(p) == 2 && p[1] == ':' && isLetter(p[0]):
		return "the whole file system"
	case homeDir(p):
		return "the user's home directory"
	case systemFolders[lp]:
		return "a system folder (" + safeText(p, 40) + ")"
	}
	segs := strings.Split(lp, "/")
	if len(segs) < 2 {
		return ""
	}
	last, parent := segs[len(segs)-1], segs[len(segs)-2]
	if what, ok := credentialFolders[parent+"/"+last]; ok {
		return what // .config/gh, google/chrome …: named enough to be the user's
	}
	if parent == ".ssh" && strings.HasPrefix(last, "id_") && !strings.HasSuffix(last, ".pub") {
		return "the user's SSH keys"
	}
	if what, ok := credentialFolders[last]; ok && homeDir(strings.Join(segs[:len(segs)-1], "/")) {
		return what // ~/.aws, not a project's own .npmrc
	}
	if what, ok := userDataFolders[last]; ok && homeDir(strings.Join(segs[:len(segs)-1], "/")) {
		return what // ~/Documents, not a project's own docs
	}
	if parent == ".local" && last == "share" && homeDir(strings.Join(segs[:len(segs)-2], "/")) {
		return "the user's programs' data (~/.local/share)"
	}
	return ""
}

// userDataFolders are the folders of a user's home that hold the user's
// own files, or every program's settings and data, by their name in the
// home (lower case), with what they hold: the folders the operating
// systems make for documents and media, the folders cloud storage
// clients keep in sync (a deletion there is carried to every copy), and
// the folders of every program's settings.
var userDataFolders = map[string]string{
	"documents":    "the user's documents",
	"desktop":      "the user's desktop",
	"downloads":    "the user's downloads",
	"pictures":     "the user's pictures",
	"photos":       "the user's photos",
	"music":        "the user's music",
	"movies":       "the user's movies",
	"videos":       "the user's videos",
	"library":      "the user's macOS Library (every program's settings and data)",
	"appdata":      "the user's Windows application data (every program's settings and data)",
	".config":      "the user's settings (every program's, credentials among them)",
	".local":       "the user's programs and their data (~/.local)",
	"onedrive":     "the user's OneDrive folder (synced: the deletion reaches every copy)",
	"dropbox":      "the user's Dropbox folder (synced: the deletion reaches every copy)",
	"google drive": "the user's Google Drive folder (synced: the deletion reaches every copy)",
}

// systemFolders are the folders an operating system runs from.
var systemFolders = set("/bin", "/boot", "/dev", "/etc", "/lib", "/lib64", "/proc", "/root", "/sbin", "/sys", "/usr",
	"/var", "/system", "/library", "/applications", "c:/windows", "c:/program files", "c:/program files (x86)",
	"%systemroot%", "%windir%", "$env:systemroot", "$env:windir", "c:/users", "/private", "/system/library")

// removes judges rm, rmdir, unlink, cmd's del, erase, rd and PowerShell's
// Remove-Item: deleting a precious path destroys it.
func (a *auditor) removes(c invocation) {
	for _, w := range c.args() {
		if !w.lit || w.text == "" {
			continue
		}
		t := w.text
		if name, val, ok := strings.Cut(t, ":"); ok && strings.HasPrefix(name, "-") {
			t = val // PowerShell's -Path:VALUE
		} else if strings.HasPrefix(t, "-") || len(t) == 2 && t[0] == '/' && isLetter(t[1]) {
			continue // an option (cmd's /s, /q too)
		}
		if what := precious(strings.Trim(t, `"'`)); what != "" {
			a.destroys(c, "deletes "+what)
			return
		}
	}
}

// findDeletes judges find: with -delete, or -exec of rm or shred, it
// deletes what it finds under its starting points.
func (a *auditor) findDeletes(c invocation) {
	args := c.args()
	deletes := slices.ContainsFunc(args, func(w arg) bool { return w.text == "-delete" })
	for i, w := range args {
		if (w.text == "-exec" || w.text == "-execdir" || w.text == "-ok") && i+1 < len(args) {
			if p := progName(args[i+1].text); p == "rm" || p == "shred" || p == "srm" {
				deletes = true
			}
		}
	}
	if !deletes {
		return
	}
	for _, w := range args {
		t := w.text
		if t == "-H" || t == "-L" || t == "-P" {
			continue
		}
		if strings.HasPrefix(t, "-") || t == "(" || t == "!" {
			return // the expression starts
		}
		if what := precious(t); what != "" && w.lit {
			a.destroys(c, "deletes "+what)
			return
		}
	}
}

// overwrites judges shred, srm and wipe: overwriting a precious path, any
// file inside a credential folder or a block device destroys it.
func (a *auditor) overwrites(c invocation) {
	for _, w := range c.args() {
		if !w.lit || strings.HasPrefix(w.text, "-") {
			continue
		}
		what := precious(w.text)
		if what == "" {
			what = credentialMount(cleanPath(w.text))
		}
		if what == "" && blockDevice(w.text) {
			what = "the disk " + safeText(w.text, 40)
		}
		if what != "" {
			a.destroys(c, "overwrites "+what)
			return
		}
	}
}

// ddDevice judges dd: writing to a block device (of=/dev/sda) overwrites
// the disk.
func (a *auditor) ddDevice(c invocation) {
	for _, w := range c.args() {
		if dev, ok := strings.CutPrefix(w.text, "of="); ok && blockDevice(dev) {
			a.destroys(c, "overwrites the disk "+safeText(dev, 40))
			return
		}
	}
}

// formatsDevice judges the tools that format, wipe or repartition a
// block device they are given.
func (a *auditor) formatsDevice(c invocation) {
	for _, w := range c.args() {
		if w.lit && blockDevice(w.text) {
			a.destroys(c, "erases the disk "+safeText(w.text, 40))
			return
		}
	}
}

// formatDrive judges cmd's format of a drive (format D: /q).
func (a *auditor) formatDrive(c invocation) {
	for _, w := range c.args() {
		if t := w.text; len(t) == 2 && t[1] == ':' && isLetter(t[0]) {
			a.destroys(c, "formats the drive "+strings.ToUpper(t))
			return
		}
	}
}

// blockDevice reports whether p names a disk or a partition of one:
// Linux's /dev/sd*, hd*, vd*, xvd*, nvme*, mmcblk*, md*, dm-*, and
// /dev/mapper/*, /dev/disk/… (by id, label …), macOS' /dev/disk* and
// /dev/rdisk*, and Windows' \\.\PhysicalDrive*.
func blockDevice(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(p), `\`, "/"))
	if strings.HasPrefix(p, "//./physicaldrive") {
		return true
	}
	dev, ok := strings.CutPrefix(p, "/dev/")
	if !ok {
		return false
	}
	for _, prefix := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "mapper/", "disk", "rdisk"} {
		if strings.HasPrefix(dev, prefix) && len(dev) > len(prefix) {
			return true
		}
	}
	return false
}
