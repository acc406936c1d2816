package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/registryd/registryd/clientip"
	"github.com/registryd/registryd/mcpimport"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/webhook"
)

// The defaults of the server's settings.
const (
	defaultAddr            = "127.0.0.1:8080"
	defaultGitHubAPIURL    = "https://api.github.com/"
	defaultShutdownTimeout = 20 * time.Second
	defaultRateLimit       = 600
	// defaultCacheableRateLimit is ten times the general budget: badges
	// and reports are cheap to serve, and an image proxy (GitHub's camo)
	// fetches every badge of every page view from a few addresses.
	defaultCacheableRateLimit = 6000
	maxShutdownTimeout        = 10 * time.Minute
	maxWebhookSecrets         = 8
	// defaultUpstreamInterval is how often the scheduled sync asks an
	// upstream MCP Registry what changed.
	defaultUpstreamInterval = time.Hour
	// defaultCheckpointInterval is how old the log's checkpoint may get
	// before it is signed again; clients refuse one older than a day by
	// default. The bounds keep signing cheap and the log's freshness
	// meaningful.
	defaultCheckpointInterval = 10 * time.Minute
	minCheckpointInterval     = 10 * time.Second
	maxCheckpointInterval     = 24 * time.Hour
)

// config is everything `registryd serve` is configured with, from flags and
// REGISTRYD_* variables (a flag wins over its variable). It is validated as
// a whole before anything is opened. It holds secrets: log it only through
// LogValue, which leaves them out.
type config struct {
	// Addr is the TCP address the server listens on (host:port; port 0
	// picks a free one).
	Addr string
	// Store selects the database: PostgreSQL for a postgres:// URL, else
	// SQLite under DataDir.
	Store storage.Config
	// PublicURL is the externally visible base URL, without a trailing
	// slash, or "" for relative links.
	PublicURL string
	// GitHub configures the GitHub integration.
	GitHub githubConfig
	// ShutdownTimeout bounds how long in-flight requests may take to finish
	// once a shutdown is asked for.
	ShutdownTimeout time.Duration
	// RateLimit is requests a minute per client address and per token,
	// for everything but the cacheable public reads; 0 disables it.
	RateLimit int
	// CacheableRateLimit is requests a minute per client address for the
	// cacheable public reads (reports, badges, /openapi.json, /v1/rules,
	// the pages' assets); 0 disables it.
	CacheableRateLimit int
	// TrustedProxies are the ranges whose forwarding header is believed
	// for the client's address and scheme; empty believes none.
	TrustedProxies []netip.Prefix
	// ForwardedHeader is the header the trusted proxies append the
	// client's address to: X-Forwarded-For or Forwarded.
	ForwardedHeader string
	// MetricsAddr, when set, is where GET /metrics is served instead of
	// the main listener.
	MetricsAddr string
	// Upstream configures the scheduled sync with an MCP Registry.
	Upstream upstreamConfig
	// LogFormat is "text" or "json"; LogLevel the lowest level logged.
	LogFormat string
	LogLevel  slog.Level
	// CheckpointInterval is the age at which the log's checkpoint is
	// signed again even when nothing was appended. The signing keys are
	// Store.Signing's.
	CheckpointInterval time.Duration
}

// githubConfig is the GitHub integration's part of config.
type githubConfig struct {
	// WebhookSecrets verify X-Hub-Signature-256; several allow rotation.
	// Empty disables the webhook endpoint.
	WebhookSecrets [][]byte
	// Token authenticates calls to GitHub's API; empty calls it anonymously.
	Token string
	// APIURL is GitHub's REST API base URL, with a trailing slash (GitHub
	// Enterprise: https://HOST/api/v3/).
	APIURL string
	// ManifestGlob selects manifest files in a repository.
	ManifestGlob string
	// WebhookBodyBudget bounds the bytes of webhook bodies held in memory
	// at once (see webhook.BodyBudget).
	WebhookBodyBudget int64
}

// upstreamConfig is the scheduled sync's part of config.
type upstreamConfig struct {
	// URL is the MCP Registry imported from every Interval; "" disables
	// the sync.
	URL      string
	Interval time.Duration
}

// LogValue renders c for a log line without its secrets: the database URL
// loses its password, the webhook secrets and the GitHub token are counted,
// not shown.
func (c config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("addr", c.Addr),
		slog.String("database", describeStore(c.Store)),
		slog.String("public_url", c.PublicURL),
		slog.Int("github_webhook_secrets", len(c.GitHub.WebhookSecrets)),
		slog.Bool("github_token", c.GitHub.Token != ""),
		slog.String("github_api_url", c.GitHub.APIURL),
		slog.String("manifest_glob", c.GitHub.ManifestGlob),
		slog.Int64("webhook_body_budget", c.GitHub.WebhookBodyBudget),
		slog.Duration("shutdown_timeout", c.ShutdownTimeout),
		slog.Int("rate_limit", c.RateLimit),
		slog.Int("cacheable_rate_limit", c.CacheableRateLimit),
		slog.Any("trusted_proxies", c.TrustedProxies),
		slog.String("forwarded_header", c.ForwardedHeader),
		slog.String("metrics_addr", c.MetricsAddr),
		slog.String("upstream_url", c.Upstream.URL),
		slog.Duration("upstream_interval", c.Upstream.Interval),
		slog.Any("signing_keys", verifierKeys(c.Store.Signing)),
		slog.Duration("checkpoint_interval", c.CheckpointInterval),
	)
}

// verifierKeys lists the public halves of the signing keys.
func verifierKeys(s storage.Signing) []string {
	out := make([]string, len(s.Signers))
	for i, k := range s.Signers {
		out[i] = k.Verifier().Text
	}
	return out
}

// describeStore names the database without credentials.
func describeStore(sc storage.Config) string {
	if sc.DatabaseURL == "" {
		return "sqlite:" + sc.DataDir + "/" + storage.SQLiteFile
	}
	u, err := url.Parse(sc.DatabaseURL)
	if err != nil {
		return "postgres"
	}
	return u.Redacted()
}

// setting is one configurable value: a flag and the variable it mirrors.
type setting struct {
	flag, env, usage string
}

// stringVar registers a string flag whose default is the variable's value,
// or def when the variable is unset or empty. The help text shows def but
// never the variable's value, which may be a secret.
func stringVar(fs *flag.FlagSet, getenv func(string) string, p *string, s setting, def string) {
	*p = getenv(s.env)
	if *p == "" {
		*p = def
	}
	usage := s.usage + " (env " + s.env + ")"
	if def != "" {
		usage += " (default " + strconv.Quote(def) + ")"
	}
	fs.Var((*quietString)(p), s.flag, usage)
}

// quietString is a string flag.Value whose String is always empty, so that
// the flag package's help shows no value it was given from the environment.
type quietString string

func (q *quietString) String() string     { return "" }
func (q *quietString) Set(v string) error { *q = quietString(v); return nil }

// storeSettings registers the database flags every command that opens the
// store shares.
func storeSettings(fs *flag.FlagSet, getenv func(string) string, sc *storage.Config) {
	stringVar(fs, getenv, &sc.DatabaseURL, setting{"database-url", "REGISTRYD_DATABASE_URL",
		"PostgreSQL URL (postgres://user:pass@host/db); empty uses the embedded SQLite database"}, "")
	stringVar(fs, getenv, &sc.DataDir, setting{"data-dir", "REGISTRYD_DATA_DIR",
		"directory of the SQLite database, created when missing"}, storage.DefaultDataDir)
}

// checkStore validates the database settings without echoing the URL,
// which may carry a password.
func checkStore(sc storage.Config) error {
	if sc.DatabaseURL == "" {
		if sc.DataDir == "" {
			return errors.New("REGISTRYD_DATA_DIR (--data-dir): must not be empty when no database URL is set")
		}
		return nil
	}
	u, err := url.Parse(sc.DatabaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || (u.Host == "" && u.Query().Get("host") == "") {
		return errors.New("REGISTRYD_DATABASE_URL (--database-url): must be a postgres:// or postgresql:// URL with a host, or empty for SQLite")
	}
	return nil
}

// parseFlags parses args into fs. When --help (or -h) is asked for it
// writes fs's usage to stdout, once, and returns errHelp; a misused flag is
// a usage error saying what was wrong, for the caller to print on standard
// error, without the usage around it.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	var usage bytes.Buffer
	fs.SetOutput(&usage)
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(usage.Bytes())
		return errHelp
	}
	return usageError("%s (run `%s --help` for usage)", safetext.TruncateRunes(printable(err.Error()), 200), fs.Name())
}

// errHelp ends a command that printed its help.
var errHelp = errors.New("help requested")

// loadServeConfig reads serve's configuration from args and getenv and
// validates it.
func loadServeConfig(args []string, getenv func(string) string, stdout io.Writer) (config, error) {
	var (
		c                                                              config
		secrets, shutdown, rate, logLevel, apiURL, budget              string
		cacheableRate, proxies, upstreamInterval, keyFiles, cpInterval string
	)
	fs := flag.NewFlagSet("registryd serve", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: registryd serve [flags]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Serves the registry's REST API, reports, badges and web pages. Every flag")
		fmt.Fprintln(fs.Output(), "mirrors a REGISTRYD_* variable; a flag wins over its variable. Prefer the")
		fmt.Fprintln(fs.Output(), "variables for secrets: other users of the machine can see flags.")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Flags:")
		fs.PrintDefaults()
	}
	stringVar(fs, getenv, &c.Addr, setting{"addr", "REGISTRYD_ADDR", "address to listen on, host:port"}, defaultAddr)
	storeSettings(fs, getenv, &c.Store)
	stringVar(fs, getenv, &c.PublicURL, setting{"public-url", "REGISTRYD_PUBLIC_URL",
		"externally visible base URL used in links, e.g. https://registry.example"}, "")
	stringVar(fs, getenv, &secrets, setting{"github-webhook-secret", "REGISTRYD_GITHUB_WEBHOOK_SECRET",
		"GitHub webhook secret; several separated by commas during a rotation; empty disables the webhook"}, "")
	stringVar(fs, getenv, &c.GitHub.Token, setting{"github-token", "REGISTRYD_GITHUB_TOKEN",
		"token for GitHub's API (reading pull requests, posting statuses)"}, "")
	stringVar(fs, getenv, &apiURL, setting{"github-api-url", "REGISTRYD_GITHUB_API_URL",
		"GitHub REST API base URL (GitHub Enterprise: https://HOST/api/v3/)"}, defaultGitHubAPIURL)
	stringVar(fs, getenv, &c.GitHub.ManifestGlob, setting{"manifest-glob", "REGISTRYD_MANIFEST_GLOB",
		"which files of a repository are addon manifests"}, webhook.DefaultManifestGlob)
	stringVar(fs, getenv, &budget, setting{"webhook-body-budget", "REGISTRYD_WEBHOOK_BODY_BUDGET",
		"webhook bodies held in memory at once, in bytes or with KiB, MiB or GiB; beyond it deliveries are answered 503"}, "64MiB")
	stringVar(fs, getenv, &shutdown, setting{"shutdown-timeout", "REGISTRYD_SHUTDOWN_TIMEOUT",
		"how long in-flight requests may take to finish on SIGTERM/SIGINT"}, defaultShutdownTimeout.String())
	stringVar(fs, getenv, &rate, setting{"rate-limit", "REGISTRYD_RATE_LIMIT",
		"requests a minute per client address and per token; 0 disables"}, strconv.Itoa(defaultRateLimit))
	stringVar(fs, getenv, &cacheableRate, setting{"cacheable-rate-limit", "REGISTRYD_CACHEABLE_RATE_LIMIT",
		"requests a minute per client address for reports, badges, /openapi.json, /v1/rules and the pages' assets; 0 disables"}, strconv.Itoa(defaultCacheableRateLimit))
	stringVar(fs, getenv, &proxies, setting{"trusted-proxies", "REGISTRYD_TRUSTED_PROXIES",
		"comma-separated CIDR ranges of reverse proxies whose forwarding header gives the client's address and scheme; empty trusts none"}, "")
	stringVar(fs, getenv, &c.ForwardedHeader, setting{"forwarded-header", "REGISTRYD_FORWARDED_HEADER",
		"the header the trusted proxies append the client's address to: X-Forwarded-For or Forwarded"}, clientip.XForwardedFor)
	stringVar(fs, getenv, &c.MetricsAddr, setting{"metrics-addr", "REGISTRYD_METRICS_ADDR",
		"host:port to serve GET /metrics on instead of the main listener"}, "")
	stringVar(fs, getenv, &c.Upstream.URL, setting{"upstream-url", "REGISTRYD_UPSTREAM_URL",
		"an MCP Registry to import from on a schedule, as 'registryd import mcp-registry' does; empty disables"}, "")
	stringVar(fs, getenv, &upstreamInterval, setting{"upstream-interval", "REGISTRYD_UPSTREAM_INTERVAL",
		"how often to sync with the upstream MCP Registry, at least 1m"}, defaultUpstreamInterval.String())
	stringVar(fs, getenv, &keyFiles, signingSetting, "")
	stringVar(fs, getenv, &cpInterval, setting{"checkpoint-interval", "REGISTRYD_CHECKPOINT_INTERVAL",
		"the transparency log's checkpoint is signed again when it is this old, even when nothing changed"}, defaultCheckpointInterval.String())
	stringVar(fs, getenv, &c.LogFormat, setting{"log-format", "REGISTRYD_LOG_FORMAT", "text or json"}, "text")
	stringVar(fs, getenv, &logLevel, setting{"log-level", "REGISTRYD_LOG_LEVEL", "debug, info, warn or error"}, "info")
	fs.BoolVar(&c.Store.SkipMigrate, "skip-migrate", getenv("REGISTRYD_SKIP_MIGRATE") == "1",
		"do not apply migrations at start (run 'registryd migrate' instead); /readyz fails until they are applied (env REGISTRYD_SKIP_MIGRATE=1)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, usageError("unexpected argument %q", safeArg(fs.Arg(0)))
	}

	var errs []error
	bad := func(s setting, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s (--%s): %s", s.env, s.flag, fmt.Sprintf(format, args...)))
	}
	if err := checkAddr(c.Addr); err != nil {
		bad(setting{flag: "addr", env: "REGISTRYD_ADDR"}, "%v", err)
	}
	if err := checkStore(c.Store); err != nil {
		errs = append(errs, err)
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			bad(setting{flag: "public-url", env: "REGISTRYD_PUBLIC_URL"}, "must be an absolute http or https URL without credentials, query or fragment")
		} else {
			c.PublicURL = strings.TrimRight(c.PublicURL, "/")
		}
	}
	if secrets != "" {
		for i, part := range strings.Split(secrets, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				bad(setting{flag: "github-webhook-secret", env: "REGISTRYD_GITHUB_WEBHOOK_SECRET"}, "secret %d of the list is empty", i+1)
				continue
			}
			c.GitHub.WebhookSecrets = append(c.GitHub.WebhookSecrets, []byte(part))
		}
		if len(c.GitHub.WebhookSecrets) > maxWebhookSecrets {
			bad(setting{flag: "github-webhook-secret", env: "REGISTRYD_GITHUB_WEBHOOK_SECRET"}, "at most %d secrets", maxWebhookSecrets)
		}
	}
	if !safetext.GraphicASCII(c.GitHub.Token) {
		bad(setting{flag: "github-token", env: "REGISTRYD_GITHUB_TOKEN"}, "must be printable ASCII without spaces")
	}
	if u, err := url.Parse(apiURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		bad(setting{flag: "github-api-url", env: "REGISTRYD_GITHUB_API_URL"}, "must be an absolute http or https URL without credentials, query or fragment")
	} else {
		if !strings.HasSuffix(apiURL, "/") {
			apiURL += "/"
		}
		c.GitHub.APIURL = apiURL
	}
	if err := webhook.ValidateGlob(c.GitHub.ManifestGlob); err != nil {
		bad(setting{flag: "manifest-glob", env: "REGISTRYD_MANIFEST_GLOB"}, "%v", err)
	}
	if n, ok := parseSize(budget); !ok || n < webhook.MinBodyBudget {
		bad(setting{flag: "webhook-body-budget", env: "REGISTRYD_WEBHOOK_BODY_BUDGET"},
			"must be a size such as 64MiB (bytes, or a whole number of KiB, MiB or GiB), at least %dMiB", webhook.MinBodyBudget>>20)
	} else {
		c.GitHub.WebhookBodyBudget = n
	}
	if d, err := time.ParseDuration(shutdown); err != nil || d <= 0 || d > maxShutdownTimeout {
		bad(setting{flag: "shutdown-timeout", env: "REGISTRYD_SHUTDOWN_TIMEOUT"}, "must be a duration such as 20s, above 0 and at most %s", maxShutdownTimeout)
	} else {
		c.ShutdownTimeout = d
	}
	if n, err := strconv.Atoi(rate); err != nil || n < 0 {
		bad(setting{flag: "rate-limit", env: "REGISTRYD_RATE_LIMIT"}, "must be a whole number, 0 or more")
	} else {
		c.RateLimit = n
	}
	if n, err := strconv.Atoi(cacheableRate); err != nil || n < 0 {
		bad(setting{flag: "cacheable-rate-limit", env: "REGISTRYD_CACHEABLE_RATE_LIMIT"}, "must be a whole number, 0 or more")
	} else {
		c.CacheableRateLimit = n
	}
	if p, err := clientip.ParsePrefixes(proxies); err != nil {
		bad(setting{flag: "trusted-proxies", env: "REGISTRYD_TRUSTED_PROXIES"}, "%v", err)
	} else {
		c.TrustedProxies = p
	}
	c.ForwardedHeader = http.CanonicalHeaderKey(c.ForwardedHeader)
	if _, err := clientip.New(nil, c.ForwardedHeader); err != nil {
		bad(setting{flag: "forwarded-header", env: "REGISTRYD_FORWARDED_HEADER"}, "must be X-Forwarded-For or Forwarded")
	}
	if c.MetricsAddr != "" {
		if err := checkAddr(c.MetricsAddr); err != nil {
			bad(setting{flag: "metrics-addr", env: "REGISTRYD_METRICS_ADDR"}, "%v", err)
		}
	}
	if c.Upstream.URL != "" {
		if u, err := url.Parse(c.Upstream.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			bad(setting{flag: "upstream-url", env: "REGISTRYD_UPSTREAM_URL"}, "must be an absolute http or https URL without credentials, query or fragment")
		} else {
			c.Upstream.URL = strings.TrimRight(c.Upstream.URL, "/")
		}
	}
	if d, err := time.ParseDuration(upstreamInterval); err != nil || d < mcpimport.MinSyncInterval {
		bad(setting{flag: "upstream-interval", env: "REGISTRYD_UPSTREAM_INTERVAL"}, "must be a duration such as 1h, at least %v", mcpimport.MinSyncInterval)
	} else {
		c.Upstream.Interval = d
	}
	if signers, err := loadSigners(keyFiles); err != nil {
		bad(signingSetting, "%v", err)
	} else {
		c.Store.Signing.Signers = signers
	}
	if d, err := time.ParseDuration(cpInterval); err != nil || d < minCheckpointInterval || d > maxCheckpointInterval {
		bad(setting{flag: "checkpoint-interval", env: "REGISTRYD_CHECKPOINT_INTERVAL"}, "must be a duration from %s to %s, such as 10m", minCheckpointInterval, maxCheckpointInterval)
	} else {
		c.CheckpointInterval = d
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		bad(setting{flag: "log-format", env: "REGISTRYD_LOG_FORMAT"}, `must be "text" or "json"`)
	}
	if err := c.LogLevel.UnmarshalText([]byte(logLevel)); err != nil {
		bad(setting{flag: "log-level", env: "REGISTRYD_LOG_LEVEL"}, "must be debug, info, warn or error")
	}
	if len(errs) > 0 {
		return config{}, &exitError{code: 2, err: errors.Join(errs...)}
	}
	return c, nil
}

// parseSize reads a size in bytes: a whole number, optionally followed by
// KiB, MiB or GiB. It refuses sizes of 1 TiB and over.
func parseSize(s string) (int64, bool) {
	shift := 0
	for i, unit := range []string{"KiB", "MiB", "GiB"} {
		if n, ok := strings.CutSuffix(s, unit); ok {
			s, shift = n, 10*(i+1)
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n >= 1<<(40-shift) {
		return 0, false
	}
	return n << shift, true
}

// checkAddr accepts host:port with a numeric port in [0, 65535].
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("must be host:port, e.g. 127.0.0.1:8080 or :8080")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return errors.New("the port must be a number from 0 to 65535")
	}
	return nil
}

// newLogger returns the process's logger writing to w.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
