package badge

import (
	"strings"
	"testing"

	"github.com/registryd/registryd/registry"
)

func BenchmarkRender(b *testing.B) {
	cases := []struct {
		name  string
		badge Badge
		style Style
	}{
		{"community-pass", ForAddon(registry.TierCommunity, registry.VerdictPass, true, ""), StyleFlat},
		{"verified-flat-square", ForAddon(registry.TierVerified, registry.VerdictPass, true, ""), StyleFlatSquare},
		{"cyrillic-cjk-emoji", Badge{Label: "дополнение 插件", Message: "проверено · 已验证 🚀👨\u200d👩\u200d👧", Color: "green"}, StyleFlat},
		{"hostile", Badge{Label: "<script>\u202e\x1b[31m", Message: `"&'<>` + "\x00", Color: "red"}, StyleFlat},
		{"long", Badge{Label: strings.Repeat("label ", 20), Message: strings.Repeat("message ", 20), Color: "blue"}, StyleFlat},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				n = len(Render(c.badge, c.style))
			}
			b.SetBytes(int64(n))
		})
	}
}

func BenchmarkEndpoint(b *testing.B) {
	bd := ForAddon(registry.TierCommunity, registry.VerdictReview, true, "")
	b.ReportAllocs()
	for b.Loop() {
		Endpoint(bd)
	}
}

func BenchmarkETag(b *testing.B) {
	svg := Render(ForAddon(registry.TierCommunity, registry.VerdictReview, true, ""), StyleFlat)
	b.SetBytes(int64(len(svg)))
	b.ReportAllocs()
	for b.Loop() {
		ETag(svg)
	}
}

func BenchmarkTextAdvance(b *testing.B) {
	for _, s := range []string{"community · review", "проверено · 已验证 🚀"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				textAdvance(s)
			}
		})
	}
}
