package verdict

// WithCost returns v naming the kind of cost its figure stands for:
// result.Metric's Cost ("work", "locality", "memory management", "system
// calls", ...), which the figure's producer declares with it. The verdict
// only carries and words it; it judges every figure by its rule alone.
func (v Verdict) WithCost(cost string) Verdict {
	v.Cost = cost
	return v
}

// CostNote is ", cost: KIND" for a verdict that names its figure's kind
// of cost, or "": what to append to a figure's label, so that a
// regression says what the program spends more of.
func (v Verdict) CostNote() string {
	if v.Cost == "" {
		return ""
	}
	return ", cost: " + v.Cost
}
