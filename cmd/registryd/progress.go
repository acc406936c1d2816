package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progress reports a long command as it goes (import, reassess): a bar
// redrawn in place on a terminal, a plain line every progressEvery items
// otherwise (every, progressEvery by default). With a known total the bar fills; without one it shows
// activity and the numbers tell the progress.
type progress struct {
	w     io.Writer
	tty   bool
	total int // 0 when unknown
	every int // items a plain line stands for
	frame int
	lines int // plain lines written
	doneN int
	last  string
}

// progressEvery is how many items a plain progress line stands for.
const progressEvery = 1000

// barWidth is the bar's width in characters.
const barWidth = 20

// newProgress returns the progress of total items (0 when unknown),
// written to w, as a bar when w is a terminal.
func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, every: progressEvery}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

// update reports that done items are done; line is the numbers to show.
func (p *progress) update(done int, line string) {
	p.doneN, p.last = done, line
	if p.tty {
		fmt.Fprintf(p.w, "\r\x1b[K[%s] %s", p.bar(), line)
		p.frame++
		return
	}
	every := p.every
	if every <= 0 {
		every = progressEvery
	}
	if done/every > p.lines {
		p.lines = done / every
		fmt.Fprintln(p.w, line)
	}
}

// bar draws the bar: filled in proportion to the total, or a marker
// bouncing from frame to frame when the total is unknown.
func (p *progress) bar() string {
	if p.total > 0 {
		n := min(barWidth, barWidth*p.doneN/p.total)
		return strings.Repeat("=", n) + strings.Repeat(" ", barWidth-n)
	}
	pos := p.frame % (2 * (barWidth - 3))
	if pos > barWidth-3 {
		pos = 2*(barWidth-3) - pos
	}
	return strings.Repeat(" ", pos) + "<=>" + strings.Repeat(" ", barWidth-3-pos)
}

// done ends the bar on a terminal, full, with the last numbers, and a
// newline.
func (p *progress) done() {
	if p.tty && p.frame > 0 {
		fmt.Fprintf(p.w, "\r\x1b[K[%s] %s\n", strings.Repeat("=", barWidth), p.last)
	}
}

// rateETA returns the rate of done items in elapsed, per second, and the
// time left at that rate to reach total (0 when unknown).
func rateETA(done, total int, elapsed time.Duration) (float64, time.Duration) {
	if done <= 0 || elapsed <= 0 {
		return 0, 0
	}
	rate := float64(done) / elapsed.Seconds()
	if total <= done {
		return rate, 0
	}
	return rate, time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second)
}
