package stats

import "math"

// zQuantile is the standard normal's 97.5% point.
const zQuantile = 1.959963984540054

// tTable holds Student's t 97.5% points for 1 … 30 degrees of freedom (from the
// inverse of the regularized incomplete beta function; any statistics table).
var tTable = [...]float64{
	12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
	2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
	2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
	2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
}

// TQuantile is Student's t 97.5% point at df degrees of freedom: the table to 30,
// then the Cornish-Fisher expansion around the normal (accurate to 1e-5 there).
func TQuantile(df int) float64 {
	switch {
	case df < 1:
		return math.Inf(1)
	case df <= len(tTable):
		return tTable[df-1]
	}
	z, d := zQuantile, float64(df)
	z3, z5, z7 := z*z*z, math.Pow(z, 5), math.Pow(z, 7)
	return z + (z3+z)/(4*d) + (5*z5+16*z3+3*z)/(96*d*d) + (3*z7+19*z5+17*z3-15*z)/(384*d*d*d)
}
