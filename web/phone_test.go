package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/registryd/registryd/internal/browsertest"
	"github.com/registryd/registryd/web"
)

// control is a form control (or a disclosure's summary) as the keyboard
// test sees it.
type control struct {
	I     int    // its index among the page's controls
	Desc  string // tag, name and text, to say which one
	Label string // its accessible name, as the page gives it
}

// markControls numbers every visible link and control of the page (in
// data-rgd-i), so that focus can be followed, and returns the controls
// with their labels: an input, select or textarea by its <label> or
// aria-label, a button or summary by its text.
const markControls = `[...document.querySelectorAll('a[href], input:not([type=hidden]), select, textarea, button, summary')]
	.filter(el => el.getClientRects().length > 0)
	.map((el, i) => { el.dataset.rgdI = i; return el; })
	.filter(el => el.tagName !== 'A')
	.map(el => {
		const i = Number(el.dataset.rgdI);
		const tag = el.tagName.toLowerCase();
		let label = '';
		if (tag === 'button' || tag === 'summary') {
			label = el.textContent.trim();
		} else {
			label = [...el.labels].map(l => l.textContent.trim()).join(' ').trim();
		}
		label = label || (el.getAttribute('aria-label') || '').trim();
		return {I: i, Desc: tag + '[name=' + (el.name || '') + '] ' + el.textContent.trim().slice(0, 40), Label: label};
	})`

// At a phone's width (390 px) every page, with every disclosure open, fits
// without scrolling sideways, keeps action names whole, passes axe-core,
// labels every form control and reaches every one with Tab; the two
// reason forms of a submission stand one above the other, each question
// above its answer; and a submission is approved with the keyboard alone.
func TestBrowserPhoneAndKeyboard(t *testing.T) {
	e := newEnv(t, func(d *web.Deps) { d.VerifierKeys = []string{testVerifierKey} })
	s := e.seed()
	b := e.tab(390, 844)
	b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	check := func(path string) {
		t.Helper()
		b.open(path)
		eval[int](b, `document.querySelectorAll('details').forEach(d => d.open = true), 0`)
		sw := eval[int](b, `document.documentElement.scrollWidth`)
		cw := eval[int](b, `document.documentElement.clientWidth`)
		if sw > cw+1 {
			t.Errorf("%s: page is %dpx wide in a %dpx viewport", path, sw, cw)
		}
		if broken := eval[[]string](b, `[...document.querySelectorAll('code.action')].filter(c => c.getClientRects().length !== 1).map(c => c.textContent)`); len(broken) > 0 {
			t.Errorf("%s: action names broken across lines: %q", path, broken)
		}
		for _, v := range browsertest.Axe(t, b.ctx) {
			t.Errorf("%s at 390px: %s", path, v)
		}
		controls := eval[[]control](b, markControls)
		for _, c := range controls {
			if c.Label == "" {
				t.Errorf("%s: %s has no label", path, c.Desc)
			}
		}
		// Tab from the top of the page until focus comes round again or
		// leaves the page, noting every control it lands on.
		b.do(chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0)`))
		reached := map[int]bool{}
		first := -2 // none yet
		for range 400 {
			b.do(chromedp.KeyEvent(kb.Tab))
			at := eval[int](b, `(() => { const a = document.activeElement;
				return a && a.dataset.rgdI !== undefined ? Number(a.dataset.rgdI) : -1; })()`)
			if at == first || (at == -1 && first != -2) {
				break
			}
			if first == -2 {
				first = at
			}
			reached[at] = true
		}
		for _, c := range controls {
			if !reached[c.I] {
				t.Errorf("%s: Tab never reaches %s (%q)", path, c.Desc, c.Label)
			}
		}
	}
	for _, p := range s.public {
		check(p)
	}
	b.signIn("alice")
	for _, p := range s.maintainer {
		check(p)
	}

	// The reason forms: one above the other, none of their parts side by
	// side with the other's, each question above its answer and button.
	for _, id := range []string{s.pendingID, s.failingID} {
		b.open("/review/submissions/" + id)
		type box struct{ Top, Bottom, Left, Right float64 }
		type form struct{ Form, Label, Input, Button box }
		forms := eval[[]form](b, `[...document.querySelectorAll('form[action$="/approve"], form[action$="/reject"]')].filter(f => f.getClientRects().length > 0).map(f => {
			const r = el => { const b = el.getBoundingClientRect(); return {Top: b.top, Bottom: b.bottom, Left: b.left, Right: b.right}; };
			return {Form: r(f), Label: r(f.querySelector('label')), Input: r(f.querySelector('input[name=reason]')), Button: r(f.querySelector('button'))};
		})`)
		if len(forms) == 0 {
			t.Fatalf("submission %s: no reason form shown", id)
		}
		for i, f := range forms {
			if f.Label.Bottom > f.Input.Top+1 || f.Input.Top > f.Button.Top+1 {
				t.Errorf("submission %s, form %d: question at %v, answer at %v, button at %v: want them in that order down the page", id, i, f.Label, f.Input, f.Button)
			}
			if f.Input.Right-f.Input.Left < 200 {
				t.Errorf("submission %s, form %d: the answer is %.0fpx wide", id, i, f.Input.Right-f.Input.Left)
			}
			if i > 0 && forms[i-1].Form.Bottom > f.Form.Top+1 {
				t.Errorf("submission %s: form %d (%v) is beside form %d (%v), not below it", id, i, f.Form, i-1, forms[i-1].Form)
			}
		}
	}

	// Approving with the keyboard alone: Tab to the question, type, Tab to
	// the button, Enter.
	b.open("/review/submissions/" + s.pendingID)
	for range 100 {
		b.do(chromedp.KeyEvent(kb.Tab))
		if eval[string](b, `document.activeElement.id`) == "approve-reason" {
			break
		}
	}
	if got := eval[string](b, `document.activeElement.id`); got != "approve-reason" {
		t.Fatalf("Tab does not reach the approval's reason (focus on %q)", got)
	}
	b.do(chromedp.KeyEvent("same wiring as 1.0.0"), chromedp.KeyEvent(kb.Tab))
	if got := eval[string](b, `document.activeElement.id`); got != "approve" {
		t.Fatalf("after the reason, Tab lands on %q, want the approve button", got)
	}
	b.leave(chromedp.KeyEvent(kb.Enter), "pressed Enter on the approve button")
	if got := b.text("main"); !strings.Contains(got, "approved") || !strings.Contains(got, "Decided by alice: same wiring as 1.0.0") {
		t.Errorf("after approving by keyboard the page says %q", got)
	}
}
