package registry_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/registryd/registryd/registry"
)

func TestLevelText(t *testing.T) {
	for _, l := range []registry.Level{registry.LevelNone, registry.LevelInfo, registry.LevelWarn, registry.LevelDanger} {
		b, err := l.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got registry.Level
		if err := got.UnmarshalText(b); err != nil || got != l {
			t.Errorf("round trip of %v: got %v, err %v", l, got, err)
		}
	}
	var l registry.Level
	if err := l.UnmarshalText([]byte("critical")); err == nil {
		t.Error("UnmarshalText(critical) succeeded")
	}
	if got := registry.Level(9).String(); got != "level(9)" {
		t.Errorf("String of an unknown level = %q", got)
	}
	if !(registry.LevelInfo < registry.LevelWarn && registry.LevelWarn < registry.LevelDanger) {
		t.Error("levels are not ordered info < warn < danger")
	}
}

func TestRoleAtLeast(t *testing.T) {
	tests := []struct {
		r, min registry.Role
		want   bool
	}{
		{registry.RoleAdmin, registry.RoleMaintainer, true},
		{registry.RoleMaintainer, registry.RoleMaintainer, true},
		{registry.RoleSubmitter, registry.RoleMaintainer, false},
		{registry.RoleSubmitter, registry.RoleSubmitter, true},
		{registry.Role("root"), registry.RoleSubmitter, false},
		{registry.Role(""), registry.Role(""), false},
	}
	for _, tt := range tests {
		if got := tt.r.AtLeast(tt.min); got != tt.want {
			t.Errorf("%q.AtLeast(%q) = %v, want %v", tt.r, tt.min, got, tt.want)
		}
	}
}

func TestValidationError(t *testing.T) {
	err := fmt.Errorf("submit: %w", &registry.ValidationError{Fields: []registry.FieldError{
		{Path: "mcp.args[2]", Line: 7, Message: "control character"},
		{Message: "not TOML"},
	}})
	if !errors.Is(err, registry.ErrInvalid) || errors.Is(err, registry.ErrTooLarge) {
		t.Errorf("errors.Is: invalid %v, too large %v", errors.Is(err, registry.ErrInvalid), errors.Is(err, registry.ErrTooLarge))
	}
	want := "submit: mcp.args[2] (line 7): control character\n(document): not TOML"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	big := &registry.ValidationError{TooLarge: true}
	if !errors.Is(big, registry.ErrTooLarge) || !errors.Is(big, registry.ErrInvalid) {
		t.Error("a too-large ValidationError does not match both sentinels")
	}
}

func TestEnumsValid(t *testing.T) {
	if !registry.VerdictFail.Valid() || registry.Verdict("ok").Valid() {
		t.Error("Verdict.Valid")
	}
	if !registry.TierVerified.Valid() || registry.Tier("gold").Valid() {
		t.Error("Tier.Valid")
	}
	if !registry.ReasonAcceptedRisk.Valid() || registry.SuppressionReason("because").Valid() {
		t.Error("SuppressionReason.Valid")
	}
}
