// Command registryd-load sends HTTP load at a registryd server and prints
// what it measured: requests a second and latency quantiles (p50, p90, p99,
// max), with the number of errors.
//
// Usage:
//
//	registryd-load -mode get -path /v1/addons/NAME/report [flags]
//	registryd-load -mode revalidate -path /v1/addons/NAME/report [flags]
//	REGISTRYD_LOAD_TOKEN=rgd_… registryd-load -mode submit [flags]
//	registryd-load seed -addons N [-database-url URL | -data-dir DIR]
//	registryd-load scale [-pid PID] [-database-url URL | -data-dir DIR]
//
// seed fills an empty registry's database with N published addons through
// the workflow (no HTTP); scale measures every request of docs/scale.md's
// table against a server on that database and prints the table.
//
// Every run is bounded in time (-duration) and in count (-requests), and by
// default it refuses any target that is not a loopback address. The server
// under load should run with its rate limits off (registryd serve
// --rate-limit 0 --cacheable-rate-limit 0), or the limiter's 429s are what
// gets measured.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/registryd/registryd/internal/loadtest"
	"github.com/registryd/registryd/safetext"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err))
}

// Defaults of the flags.
const (
	defaultURL         = "http://127.0.0.1:8080"
	defaultDuration    = 10 * time.Second
	defaultConcurrency = 16
	submitPath         = "/v1/submissions"
)

// exitError carries an exit status out of run; a nil err means the message
// was already printed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return "exit status " + strconv.Itoa(e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// said prints what went wrong in subcommand cmd, when err says more than
// its exit status (an exitError without a message was reported where it
// happened), and returns err.
func said(err error, cmd string, stderr io.Writer) error {
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintf(stderr, "registryd-load %s: %v\n", cmd, ee.err)
		}
	default:
		fmt.Fprintf(stderr, "registryd-load %s: %v\n", cmd, err)
	}
	return err
}

// run is the command without its process: it parses args (the environment
// through getenv), runs the load and prints the result to stdout. A usage
// error exits 2, a run that could not start 1, and a run with errors 3,
// so scripts can tell a slow server from a failing one.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "seed":
			return said(runSeed(ctx, args[1:], getenv, stdout, stderr), "seed", stderr)
		case "scale":
			return said(runScale(ctx, args[1:], getenv, stdout, stderr), "scale", stderr)
		}
	}
	c, err := parseConfig(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		var ee *exitError
		if errors.As(err, &ee) && ee.err != nil {
			fmt.Fprintf(stderr, "registryd-load: %v\n", ee.err)
		}
		return err
	}
	res, err := loadtest.Run(ctx, c)
	if err != nil {
		fmt.Fprintf(stderr, "registryd-load: %v\n", err)
		return &exitError{code: 1}
	}
	printResult(stdout, res)
	if res.Errors > 0 {
		return &exitError{code: 3}
	}
	return nil
}

// parseConfig reads the run's configuration from args, and the token from
// -token or REGISTRYD_LOAD_TOKEN (which other users of the machine cannot
// see, unlike flags).
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (loadtest.Config, error) {
	var (
		c         loadtest.Config
		base      string
		path      string
		mode      string
		requests  int64
		fs        = flag.NewFlagSet("registryd-load", flag.ContinueOnError)
		envToken  = getenv("REGISTRYD_LOAD_TOKEN")
		tokenFlag string
	)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "Usage: registryd-load [flags]")
		fmt.Fprintln(w, "       registryd-load seed -addons N [flags]   (see registryd-load seed -h)")
		fmt.Fprintln(w, "       registryd-load scale [flags]            (see registryd-load scale -h)")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Sends closed-loop HTTP load at a registryd server and prints requests/s,")
		fmt.Fprintln(w, "p50, p90, p99, max latency and errors. Modes:")
		fmt.Fprintln(w, "  get         GET -path; expects 200 and the same body length every time")
		fmt.Fprintln(w, "  revalidate  GET -path with If-None-Match of its ETag; expects 304")
		fmt.Fprintln(w, "  submit      POST a new manifest per request to "+submitPath+"; expects 201")
		fmt.Fprintln(w, "              (needs a submitter token: REGISTRYD_LOAD_TOKEN or -token)")
		fmt.Fprintln(w, "Run the server with --rate-limit 0 --cacheable-rate-limit 0. Exit status: 0 ok, 1 could not start,")
		fmt.Fprintln(w, "2 usage, 3 the run had errors.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Flags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&base, "url", defaultURL, "base URL of the server (loopback only unless -allow-remote)")
	fs.StringVar(&path, "path", "", "path to load: the report for get and revalidate, e.g. /v1/addons/NAME/report; default "+submitPath+" for submit")
	fs.StringVar(&mode, "mode", string(loadtest.ModeGet), "get, revalidate or submit")
	fs.DurationVar(&c.Duration, "duration", defaultDuration, "how long to send load, at most "+loadtest.MaxDuration.String())
	fs.IntVar(&c.Concurrency, "concurrency", defaultConcurrency, "workers, each with one request in flight, at most "+strconv.Itoa(loadtest.MaxConcurrency))
	fs.Int64Var(&requests, "requests", 0, "stop after this many requests; 0 means only -duration bounds the run")
	fs.StringVar(&tokenFlag, "token", "", "API bearer token (prefer REGISTRYD_LOAD_TOKEN: flags are visible to other users)")
	fs.BoolVar(&c.AllowRemote, "allow-remote", false, "permit a target that is not a loopback address")
	fs.StringVar(&c.RunID, "run-id", "", "submit: distinguishes this run's addon names (lower-case letters and digits); default random")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, &exitError{code: 2} // the flag package printed the problem
	}
	if fs.NArg() > 0 {
		return c, &exitError{code: 2, err: fmt.Errorf("unexpected argument %s", strconv.QuoteToASCII(fs.Arg(0)))}
	}
	c.Mode = loadtest.Mode(mode)
	c.MaxRequests = requests
	c.Token = envToken
	if tokenFlag != "" {
		c.Token = tokenFlag
	}
	var errs []error
	switch {
	case path == "" && c.Mode == loadtest.ModeSubmit:
		path = submitPath
	case path == "" && c.Mode.Valid():
		errs = append(errs, errors.New("path: "+string(c.Mode)+" needs the path of a report, e.g. /v1/addons/NAME/report"))
	case path != "" && (!strings.HasPrefix(path, "/") || !safetext.GraphicASCII(path)):
		errs = append(errs, errors.New("path: must start with / and be printable ASCII"))
	}
	c.URL = strings.TrimRight(base, "/") + path
	if _, err := c.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return c, &exitError{code: 2, err: errors.Join(errs...)}
	}
	return c, nil
}

// printResult writes res as aligned lines.
func printResult(w io.Writer, res loadtest.Result) {
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64) + " ms"
	}
	fmt.Fprintf(w, "mode         %s\n", res.Mode)
	fmt.Fprintf(w, "target       %s\n", strconv.QuoteToASCII(res.URL))
	fmt.Fprintf(w, "concurrency  %d\n", res.Concurrency)
	fmt.Fprintf(w, "elapsed      %.2f s\n", res.Elapsed.Seconds())
	fmt.Fprintf(w, "requests     %d\n", res.Requests)
	fmt.Fprintf(w, "errors       %d\n", res.Errors)
	fmt.Fprintf(w, "requests/s   %.1f\n", res.PerSecond())
	fmt.Fprintf(w, "p50          %s\n", ms(res.P50))
	fmt.Fprintf(w, "p90          %s\n", ms(res.P90))
	fmt.Fprintf(w, "p99          %s\n", ms(res.P99))
	fmt.Fprintf(w, "max          %s\n", ms(res.Max))
	for _, s := range res.ErrorSamples {
		fmt.Fprintf(w, "error        %s\n", s)
	}
}
