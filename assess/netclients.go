package assess

import "strings"

// Network clients whose use of the network the audit did not infer: the
// command-line clients of hosted services (doctl, flyctl, heroku, vercel,
// wrangler, supabase, stripe, vault …, programs.go), terraform's plan and
// apply, docker push and login, and database clients given another host
// (a URL, -h or --host, sqlcmd's -S, a conninfo's host=). A wiring that
// declares network = "none" and runs one is cap_net_underdeclared.

// dbSchemes are the URL schemes of database servers.
var dbSchemes = set("postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis", "rediss",
	"valkey", "sqlserver", "mssql", "clickhouse", "cassandra", "cockroachdb")

// dbRemote judges a database client given a server on another host.
func (a *auditor) dbRemote(c invocation) cmdInfo {
	args := c.args()
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.lit {
			continue
		}
		t := strings.TrimSpace(w.text)
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "-h" || flag == "--host" || flag == "--hostname" || flag == "-S" && c.name == "sqlcmd" ||
			flag == "--server" || flag == "-H" && c.name == "usql":
			if v, ok := optValue(args, &i, val, joined); ok && v.lit && remoteDBHost(v.text) {
				a.inferred.Network = true
				return cmdInfo{name: c.name}
			}
		case len(t) > 2 && t[0] == '-' && t[1] == 'h' && !strings.HasPrefix(t, "-help") && c.name != "sqlcmd":
			// -hdb.example.com
			if remoteDBHost(t[2:]) {
				a.inferred.Network = true
				return cmdInfo{name: c.name}
			}
		default:
			if remoteDBURL(t) || strings.Contains(t, "host=") && conninfoRemote(t) {
				a.inferred.Network = true
				return cmdInfo{name: c.name}
			}
		}
	}
	return cmdInfo{name: c.name}
}

// remoteDBHost reports whether a database client's host option names
// another machine: not loopback, not a socket folder or file, not a
// placeholder, not SQL Server's local names.
func remoteDBHost(h string) bool {
	h = strings.TrimSpace(h)
	if h == "" || strings.HasPrefix(h, "/") || strings.HasPrefix(h, "$") || strings.ContainsAny(h, "{}<>%") {
		return false
	}
	host := h
	if i := strings.IndexAny(host, ",\\"); i >= 0 {
		host = host[:i] // sqlcmd -S host,1433 or host\INSTANCE
	}
	host = strings.TrimPrefix(host, "tcp:")
	if j := strings.LastIndexByte(host, ':'); j > 0 && !strings.Contains(host[:j], ":") {
		host = host[:j]
	}
	switch strings.ToLower(host) {
	case ".", "(local)", "(localdb)", "localhost", "":
		return false
	}
	return !loopbackHost(strings.Trim(host, "[]"))
}

// remoteDBURL reports whether t is a database server's URL on another
// host.
func remoteDBURL(t string) bool {
	i := strings.Index(t, "://")
	if i <= 0 || !dbSchemes[strings.ToLower(t[:i])] {
		return false
	}
	u, ok := parseAnyURL(t)
	if !ok {
		// mongodb://a,b,c/ lists hosts: judge the first.
		rest := t[i+3:]
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			rest = rest[at+1:]
		}
		host, _, _ := strings.Cut(rest, "/")
		host, _, _ = strings.Cut(host, ",")
		return remoteDBHost(host)
	}
	return remoteDBHost(u.Host)
}

// conninfoRemote reports whether a libpq connection string (host=… dbname=…)
// names another host.
func conninfoRemote(t string) bool {
	for _, kv := range strings.Fields(t) {
		if v, ok := strings.CutPrefix(kv, "host="); ok {
			return remoteDBHost(strings.Trim(v, `'"`))
		}
	}
	return false
}
