package main

import (
	"bytes"
	"errors"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/storage"
)

// envOf returns a getenv over m.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestServeConfigDefaults(t *testing.T) {
	c, err := loadServeConfig(nil, envOf(nil), new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		Addr:               "127.0.0.1:8080",
		Store:              storage.Config{DataDir: "./data"},
		GitHub:             githubConfig{APIURL: "https://api.github.com/", ManifestGlob: "**/lean-ctx-addon.toml", WebhookBodyBudget: 64 << 20},
		ShutdownTimeout:    20 * time.Second,
		RateLimit:          600,
		CacheableRateLimit: 6000,
		ForwardedHeader:    "X-Forwarded-For",
		Upstream:           upstreamConfig{Interval: time.Hour},
		LogFormat:          "text",
		LogLevel:           slog.LevelInfo,
		CheckpointInterval: 10 * time.Minute,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestServeConfigEnvAndFlags(t *testing.T) {
	env := map[string]string{
		"REGISTRYD_ADDR":                  ":9000",
		"REGISTRYD_DATABASE_URL":          "postgres://registryd:hunter2@db:5432/registryd?sslmode=disable",
		"REGISTRYD_PUBLIC_URL":            "https://registry.example/",
		"REGISTRYD_GITHUB_WEBHOOK_SECRET": "old-secret, new-secret",
		"REGISTRYD_GITHUB_TOKEN":          "ghp_abcdef",
		"REGISTRYD_GITHUB_API_URL":        "https://ghe.example/api/v3",
		"REGISTRYD_MANIFEST_GLOB":         "addons/*/lean-ctx-addon.toml",
		"REGISTRYD_WEBHOOK_BODY_BUDGET":   "1GiB",
		"REGISTRYD_SHUTDOWN_TIMEOUT":      "5s",
		"REGISTRYD_RATE_LIMIT":            "0",
		"REGISTRYD_CACHEABLE_RATE_LIMIT":  "120",
		"REGISTRYD_TRUSTED_PROXIES":       "10.0.0.0/8, 192.168.1.7, fd00::/8",
		"REGISTRYD_FORWARDED_HEADER":      "forwarded",
		"REGISTRYD_METRICS_ADDR":          "127.0.0.1:9090",
		"REGISTRYD_LOG_FORMAT":            "json",
		"REGISTRYD_LOG_LEVEL":             "debug",
		"REGISTRYD_CHECKPOINT_INTERVAL":   "1m",
		"REGISTRYD_SKIP_MIGRATE":          "1",
		"REGISTRYD_UPSTREAM_URL":          "https://registry.modelcontextprotocol.io/",
		"REGISTRYD_UPSTREAM_INTERVAL":     "30m",
	}
	c, err := loadServeConfig([]string{"--addr", "127.0.0.1:0", "--rate-limit", "30", "--webhook-body-budget", "100MiB"}, envOf(env), new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		Addr:      "127.0.0.1:0", // the flag wins over the variable
		Store:     storage.Config{DatabaseURL: env["REGISTRYD_DATABASE_URL"], DataDir: "./data", SkipMigrate: true},
		PublicURL: "https://registry.example",
		GitHub: githubConfig{
			WebhookSecrets:    [][]byte{[]byte("old-secret"), []byte("new-secret")},
			Token:             "ghp_abcdef",
			APIURL:            "https://ghe.example/api/v3/",
			ManifestGlob:      "addons/*/lean-ctx-addon.toml",
			WebhookBodyBudget: 100 << 20,
		},
		ShutdownTimeout:    5 * time.Second,
		RateLimit:          30,
		CacheableRateLimit: 120,
		TrustedProxies:     []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.7/32"), netip.MustParsePrefix("fd00::/8")},
		ForwardedHeader:    "Forwarded",
		MetricsAddr:        "127.0.0.1:9090",
		Upstream:           upstreamConfig{URL: "https://registry.modelcontextprotocol.io", Interval: 30 * time.Minute},
		LogFormat:          "json",
		LogLevel:           slog.LevelDebug,
		CheckpointInterval: time.Minute,
	}
	if diff := cmp.Diff(want, c, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}

	// Logging the config shows none of its secrets.
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("starting", "config", c)
	for _, secret := range []string{"hunter2", "old-secret", "new-secret", "ghp_abcdef"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("the logged config contains the secret %q: %s", secret, buf.String())
		}
	}
	if !strings.Contains(buf.String(), "db:5432") {
		t.Errorf("the logged config does not name the database host: %s", buf.String())
	}
}

func TestServeConfigRefusals(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		mention string // the setting the error must name
	}{
		{"addr without port", map[string]string{"REGISTRYD_ADDR": "localhost"}, nil, "REGISTRYD_ADDR"},
		{"addr port too big", nil, []string{"--addr", ":65536"}, "REGISTRYD_ADDR"},
		{"addr port not a number", nil, []string{"--addr", ":http"}, "REGISTRYD_ADDR"},
		{"mysql url", map[string]string{"REGISTRYD_DATABASE_URL": "mysql://root:hunter2@db/x"}, nil, "REGISTRYD_DATABASE_URL"},
		{"postgres url without host", map[string]string{"REGISTRYD_DATABASE_URL": "postgres://u:hunter2@/db"}, nil, "REGISTRYD_DATABASE_URL"},
		{"empty data dir", nil, []string{"--data-dir", ""}, "REGISTRYD_DATA_DIR"},
		{"public url ftp", map[string]string{"REGISTRYD_PUBLIC_URL": "ftp://registry.example"}, nil, "REGISTRYD_PUBLIC_URL"},
		{"public url with query", map[string]string{"REGISTRYD_PUBLIC_URL": "https://registry.example/?a=1"}, nil, "REGISTRYD_PUBLIC_URL"},
		{"public url with credentials", map[string]string{"REGISTRYD_PUBLIC_URL": "https://u:hunter2@registry.example"}, nil, "REGISTRYD_PUBLIC_URL"},
		{"empty secret in list", map[string]string{"REGISTRYD_GITHUB_WEBHOOK_SECRET": "hunter2,,other"}, nil, "REGISTRYD_GITHUB_WEBHOOK_SECRET"},
		{"too many secrets", map[string]string{"REGISTRYD_GITHUB_WEBHOOK_SECRET": "a,b,c,d,e,f,g,h,i"}, nil, "REGISTRYD_GITHUB_WEBHOOK_SECRET"},
		{"token with newline", map[string]string{"REGISTRYD_GITHUB_TOKEN": "hunter2\n"}, nil, "REGISTRYD_GITHUB_TOKEN"},
		{"api url relative", map[string]string{"REGISTRYD_GITHUB_API_URL": "api.github.com"}, nil, "REGISTRYD_GITHUB_API_URL"},
		{"api url with credentials", map[string]string{"REGISTRYD_GITHUB_API_URL": "https://x:hunter2@ghe.example/"}, nil, "REGISTRYD_GITHUB_API_URL"},
		{"glob absolute", map[string]string{"REGISTRYD_MANIFEST_GLOB": "/lean-ctx-addon.toml"}, nil, "REGISTRYD_MANIFEST_GLOB"},
		{"glob bad class", nil, []string{"--manifest-glob", "[a-"}, "REGISTRYD_MANIFEST_GLOB"},
		{"shutdown zero", map[string]string{"REGISTRYD_SHUTDOWN_TIMEOUT": "0s"}, nil, "REGISTRYD_SHUTDOWN_TIMEOUT"},
		{"shutdown words", map[string]string{"REGISTRYD_SHUTDOWN_TIMEOUT": "forever"}, nil, "REGISTRYD_SHUTDOWN_TIMEOUT"},
		{"shutdown huge", map[string]string{"REGISTRYD_SHUTDOWN_TIMEOUT": "11m"}, nil, "REGISTRYD_SHUTDOWN_TIMEOUT"},
		{"rate negative", nil, []string{"--rate-limit", "-1"}, "REGISTRYD_RATE_LIMIT"},
		{"cacheable rate words", map[string]string{"REGISTRYD_CACHEABLE_RATE_LIMIT": "lots"}, nil, "REGISTRYD_CACHEABLE_RATE_LIMIT"},
		{"trusted proxy host name", map[string]string{"REGISTRYD_TRUSTED_PROXIES": "10.0.0.0/8, proxy.internal"}, nil, "REGISTRYD_TRUSTED_PROXIES"},
		{"trusted proxy bad mask", nil, []string{"--trusted-proxies", "10.0.0.0/40"}, "REGISTRYD_TRUSTED_PROXIES"},
		{"trusted proxy empty item", map[string]string{"REGISTRYD_TRUSTED_PROXIES": "10.0.0.0/8,,"}, nil, "REGISTRYD_TRUSTED_PROXIES"},
		{"forwarded header of one address", map[string]string{"REGISTRYD_FORWARDED_HEADER": "X-Real-IP"}, nil, "REGISTRYD_FORWARDED_HEADER"},
		{"metrics addr without port", map[string]string{"REGISTRYD_METRICS_ADDR": "localhost"}, nil, "REGISTRYD_METRICS_ADDR"},
		{"body budget under the minimum", map[string]string{"REGISTRYD_WEBHOOK_BODY_BUDGET": "32MiB"}, nil, "REGISTRYD_WEBHOOK_BODY_BUDGET"},
		{"body budget with a unit of its own", nil, []string{"--webhook-body-budget", "64MB"}, "REGISTRYD_WEBHOOK_BODY_BUDGET"},
		{"body budget fraction", nil, []string{"--webhook-body-budget", "0.5GiB"}, "REGISTRYD_WEBHOOK_BODY_BUDGET"},
		{"body budget negative", nil, []string{"--webhook-body-budget", "-64MiB"}, "REGISTRYD_WEBHOOK_BODY_BUDGET"},
		{"body budget overflows", nil, []string{"--webhook-body-budget", "9223372036854775807GiB"}, "REGISTRYD_WEBHOOK_BODY_BUDGET"},
		{"log format", map[string]string{"REGISTRYD_LOG_FORMAT": "xml"}, nil, "REGISTRYD_LOG_FORMAT"},
		{"log level", map[string]string{"REGISTRYD_LOG_LEVEL": "loud"}, nil, "REGISTRYD_LOG_LEVEL"},
		{"unknown flag", nil, []string{"--colour"}, "colour"},
		{"stray argument", nil, []string{"now"}, "now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			_, err := loadServeConfig(tt.args, envOf(tt.env), &stderr)
			if err == nil {
				t.Fatal("loadServeConfig succeeded, want an error")
			}
			if got := exitCode(err); got != 2 {
				t.Errorf("exit code = %d, want 2 (usage)", got)
			}
			if !strings.Contains(err.Error()+stderr.String(), tt.mention) {
				t.Errorf("error %q (stderr %q) does not name %s", err, stderr.String(), tt.mention)
			}
			if strings.Contains(err.Error()+stderr.String(), "hunter2") {
				t.Errorf("error echoes a secret: %q", err)
			}
		})
	}
}

func TestServeConfigReportsEveryProblem(t *testing.T) {
	env := map[string]string{"REGISTRYD_ADDR": "x", "REGISTRYD_LOG_FORMAT": "xml", "REGISTRYD_RATE_LIMIT": "many"}
	_, err := loadServeConfig(nil, envOf(env), new(bytes.Buffer))
	for _, name := range []string{"REGISTRYD_ADDR", "REGISTRYD_LOG_FORMAT", "REGISTRYD_RATE_LIMIT"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
}

func TestServeHelp(t *testing.T) {
	var stdout bytes.Buffer
	env := map[string]string{
		"REGISTRYD_GITHUB_TOKEN":          "ghp_hunter2",
		"REGISTRYD_GITHUB_WEBHOOK_SECRET": "hunter2-webhook",
		"REGISTRYD_DATABASE_URL":          "postgres://u:hunter2@db/x",
	}
	_, err := loadServeConfig([]string{"--help"}, envOf(env), &stdout)
	if strings.Contains(stdout.String(), "hunter2") {
		t.Errorf("--help shows a secret from the environment:\n%s", stdout.String())
	}
	if n := strings.Count(stdout.String(), `(default "127.0.0.1:8080")`); n != 1 {
		t.Errorf("--help shows the default address %d times, want once", n)
	}
	if !errors.Is(err, errHelp) {
		t.Fatalf("err = %v, want errHelp", err)
	}
	for _, want := range []string{"REGISTRYD_ADDR", "REGISTRYD_DATABASE_URL", "REGISTRYD_DATA_DIR", "REGISTRYD_GITHUB_WEBHOOK_SECRET",
		"REGISTRYD_GITHUB_TOKEN", "REGISTRYD_GITHUB_API_URL", "REGISTRYD_MANIFEST_GLOB", "REGISTRYD_PUBLIC_URL", "-skip-migrate",
		"REGISTRYD_TRUSTED_PROXIES", "REGISTRYD_FORWARDED_HEADER", "REGISTRYD_CACHEABLE_RATE_LIMIT", "REGISTRYD_METRICS_ADDR"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("--help does not document %s", want)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"34603008", 34603008, true},
		{"64MiB", 64 << 20, true},
		{"512KiB", 512 << 10, true},
		{"1GiB", 1 << 30, true},
		{"1023GiB", 1023 << 30, true},
		{"0", 0, true},
		{"1024GiB", 0, false},
		{"1099511627776", 0, false},
		{"", 0, false},
		{"MiB", 0, false},
		{" 64MiB", 0, false},
		{"64mib", 0, false},
		{"64 MiB", 0, false},
		{"-1", 0, false},
		{"1e6", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseSize(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseSize(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
