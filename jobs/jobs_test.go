package jobs

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestOutcome(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		run  Run
		err  error
		want string
	}{
		{"nil", Run{Attempt: 1, MaxAttempts: 3}, nil, OutcomeCompleted},
		{"failure with attempts left", Run{Attempt: 1, MaxAttempts: 3}, boom, OutcomeRetry},
		{"failure of the last attempt", Run{Attempt: 3, MaxAttempts: 3}, boom, OutcomeDiscarded},
		{"cancel", Run{Attempt: 1, MaxAttempts: 3}, Cancel(boom), OutcomeCancelled},
		{"wrapped cancel on the last attempt", Run{Attempt: 3, MaxAttempts: 3}, fmt.Errorf("x: %w", Cancel(boom)), OutcomeCancelled},
		{"snooze", Run{Attempt: 3, MaxAttempts: 3}, Snooze(time.Second), OutcomeSnoozed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Outcome(tt.run, tt.err); got != tt.want {
				t.Errorf("Outcome = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestObserve(t *testing.T) {
	boom := errors.New("boom")
	var seen []string
	h := Observe(Handler{Kind: "k", Work: func(ctx context.Context, r Run) error {
		if r.Attempt == 1 {
			return boom
		}
		return nil
	}}, func(kind, outcome string) { seen = append(seen, kind+" "+outcome) })
	if err := h.Work(context.Background(), Run{Attempt: 1, MaxAttempts: 2}); !errors.Is(err, boom) {
		t.Errorf("Work = %v, want the handler's own error", err)
	}
	if err := h.Work(context.Background(), Run{Attempt: 2, MaxAttempts: 2}); err != nil {
		t.Errorf("Work = %v", err)
	}
	if want := []string{"k retry", "k completed"}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("observed %v, want %v", seen, want)
	}
}
