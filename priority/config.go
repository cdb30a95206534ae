package priority

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nodesift/sift/limits"
)

// Flags are PriorityFlags.
type Flags uint32

// PriorityFlags, as slurm.conf spells them. FairTree is set unless
// NO_FAIR_TREE or DEPTH_OBLIVIOUS is given.
const (
	// AccrueAlways: age counts from submit, whatever the job's
	// eligibility or accrue limits.
	AccrueAlways Flags = 1 << iota
	// MaxTRES: billing is the largest of the node-wide TRES plus the rest.
	MaxTRES
	// SmallRelativeToTime: the job size factor is the job's size divided
	// by its time limit.
	SmallRelativeToTime
	// DepthOblivious: classic fair-share corrected for the depth of the
	// tree.
	DepthOblivious
	// CalculateRunning: running jobs' priorities are recalculated too.
	CalculateRunning
	// FairTree: the Fair Tree algorithm (Slurm's default).
	FairTree
	// IncrOnly: a recalculation never lowers a priority.
	IncrOnly
	// NoNormalAssoc, NoNormalPart, NoNormalQOS and NoNormalTRES use the
	// raw association, partition and QOS priorities and TRES counts
	// instead of normalising them to [0, 1].
	NoNormalAssoc
	NoNormalPart
	NoNormalQOS
	NoNormalTRES
	// MaxTRESGRES: as MaxTRES, with the GRES added.
	MaxTRESGRES
)

// ParseFlags reads PriorityFlags as slurmctld does: each name is looked
// for anywhere in the value, case-insensitively, so unknown words are
// ignored.
func ParseFlags(s string) Flags {
	f := FairTree
	u := strings.ToUpper(s)
	has := func(name string) bool { return strings.Contains(u, name) }
	if has("ACCRUE_ALWAYS") {
		f |= AccrueAlways
	}
	if has("SMALL_RELATIVE_TO_TIME") {
		f |= SmallRelativeToTime
	}
	if has("CALCULATE_RUNNING") {
		f |= CalculateRunning
	}
	if has("DEPTH_OBLIVIOUS") {
		f = f&^FairTree | DepthOblivious
	} else if has("NO_FAIR_TREE") {
		f &^= FairTree
	}
	if has("INCR_ONLY") {
		f |= IncrOnly
	}
	if has("MAX_TRES_GRES") {
		f |= MaxTRESGRES
	} else if has("MAX_TRES") {
		f |= MaxTRES
	}
	if has("NO_NORMAL_ALL") {
		f |= NoNormalAssoc | NoNormalPart | NoNormalQOS | NoNormalTRES
	}
	if has("NO_NORMAL_ASSOC") {
		f |= NoNormalAssoc
	}
	if has("NO_NORMAL_PART") {
		f |= NoNormalPart
	}
	if has("NO_NORMAL_QOS") {
		f |= NoNormalQOS
	}
	if has("NO_NORMAL_TRES") {
		f |= NoNormalTRES
	}
	return f
}

var flagNames = []struct {
	f    Flags
	name string
}{
	{AccrueAlways, "ACCRUE_ALWAYS"}, {SmallRelativeToTime, "SMALL_RELATIVE_TO_TIME"},
	{CalculateRunning, "CALCULATE_RUNNING"}, {DepthOblivious, "DEPTH_OBLIVIOUS"},
	{IncrOnly, "INCR_ONLY"}, {MaxTRES, "MAX_TRES"}, {MaxTRESGRES, "MAX_TRES_GRES"},
	{NoNormalAssoc, "NO_NORMAL_ASSOC"}, {NoNormalPart, "NO_NORMAL_PART"},
	{NoNormalQOS, "NO_NORMAL_QOS"}, {NoNormalTRES, "NO_NORMAL_TRES"},
}

// String is the flag list as PriorityFlags would set it (NO_FAIR_TREE
// when Fair Tree is off without DEPTH_OBLIVIOUS).
func (f Flags) String() string {
	var parts []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			parts = append(parts, n.name)
		}
	}
	if f&(FairTree|DepthOblivious) == 0 {
		parts = append(parts, "NO_FAIR_TREE")
	}
	return strings.Join(parts, ",")
}

// ResetPeriod is PriorityUsageResetPeriod.
type ResetPeriod uint8

// Usage reset periods.
const (
	ResetNone ResetPeriod = iota
	ResetNow
	ResetDaily
	ResetWeekly
	ResetMonthly
	ResetQuarterly
	ResetYearly
)

var resetNames = [...]string{"NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY"}

// String is the slurm.conf spelling.
func (r ResetPeriod) String() string {
	if int(r) < len(resetNames) {
		return resetNames[r]
	}
	return "UNKNOWN"
}

// Config is the priority part of slurm.conf. Times are seconds.
type Config struct {
	// Multifactor selects priority/multifactor; false is priority/basic.
	Multifactor bool
	// The PriorityWeight* values.
	WeightAge, WeightAssoc, WeightFairshare, WeightJobSize, WeightPartition, WeightQOS uint32
	// WeightTRES is PriorityWeightTRES as written ("CPU=1000,Mem=2000G");
	// it is resolved against the TRES list by New.
	WeightTRES string
	// MaxAge is PriorityMaxAge: the age at which the age factor reaches 1.
	MaxAge int64
	// FavorSmall is PriorityFavorSmall.
	FavorSmall bool
	Flags      Flags
	// CalcPeriod is PriorityCalcPeriod: how often usage is decayed and
	// priorities recalculated.
	CalcPeriod int64
	// DecayHalfLife is PriorityDecayHalfLife (0: no decay).
	DecayHalfLife int64
	// UsageReset is PriorityUsageResetPeriod.
	UsageReset ResetPeriod
	// Dampening is FairShareDampeningFactor (classic fair-share only).
	Dampening uint16
	// EnforceLimits is AccountingStorageEnforce having "limits": without
	// it accrue limits do not apply and age counts from eligibility.
	EnforceLimits bool
}

// DefaultConfig is slurm.conf's defaults for the priority keys, with
// PriorityType=priority/multifactor (Slurm 26.11's default type).
func DefaultConfig() Config {
	return Config{
		Multifactor:   true,
		MaxAge:        7 * 24 * 3600,
		Flags:         FairTree,
		CalcPeriod:    300,
		DecayHalfLife: 7 * 24 * 3600,
		Dampening:     1,
		EnforceLimits: true,
	}
}

// ConfigError is a priority key of slurm.conf with a bad value.
type ConfigError struct {
	Key, Value string
	Err        error
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s=%s: %v", e.Key, e.Value, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Set applies one slurm.conf key (case-insensitive); keys that are not
// the priority plugin's are ignored and reported false.
func (c *Config) Set(key, value string) (bool, error) {
	bad := func(err error) (bool, error) { return true, &ConfigError{Key: key, Value: value, Err: err} }
	weight := func(p *uint32) (bool, error) {
		n, err := strconv.ParseUint(strings.TrimSpace(value), 10, 32)
		if err != nil {
			return bad(fmt.Errorf("expected a whole number below 2^32"))
		}
		*p = uint32(n)
		return true, nil
	}
	minutes := func(p *int64) (bool, error) {
		m, err := limits.ParseMinutes(value)
		if err != nil {
			return bad(err)
		}
		*p = int64(m) * 60
		if m == limits.Infinite {
			*p = int64(limits.Infinite) * 60
		}
		return true, nil
	}
	switch strings.ToLower(key) {
	case "prioritytype":
		switch strings.ToLower(strings.TrimSpace(value)) {
		case "priority/multifactor":
			c.Multifactor = true
		case "priority/basic":
			c.Multifactor = false
		default:
			return bad(fmt.Errorf("expected priority/basic or priority/multifactor"))
		}
		return true, nil
	case "priorityweightage":
		return weight(&c.WeightAge)
	case "priorityweightassoc":
		return weight(&c.WeightAssoc)
	case "priorityweightfairshare":
		return weight(&c.WeightFairshare)
	case "priorityweightjobsize":
		return weight(&c.WeightJobSize)
	case "priorityweightpartition":
		return weight(&c.WeightPartition)
	case "priorityweightqos":
		return weight(&c.WeightQOS)
	case "priorityweighttres":
		c.WeightTRES = strings.TrimSpace(value)
		return true, nil
	case "prioritymaxage":
		return minutes(&c.MaxAge)
	case "prioritydecayhalflife":
		return minutes(&c.DecayHalfLife)
	case "prioritycalcperiod":
		ok, err := minutes(&c.CalcPeriod)
		if err == nil && c.CalcPeriod < 60 {
			return bad(fmt.Errorf("at least one minute"))
		}
		return ok, err
	case "priorityfavorsmall":
		v := strings.ToLower(strings.TrimSpace(value))
		c.FavorSmall = v == "yes" || v == "true" || v == "1"
		return true, nil
	case "priorityflags":
		c.Flags = ParseFlags(value)
		return true, nil
	case "priorityusageresetperiod":
		for i, n := range resetNames {
			if strings.EqualFold(n, strings.TrimSpace(value)) {
				c.UsageReset = ResetPeriod(i)
				return true, nil
			}
		}
		return bad(fmt.Errorf("expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY"))
	case "fairsharedampeningfactor":
		n, err := strconv.ParseUint(strings.TrimSpace(value), 10, 16)
		if err != nil || n == 0 {
			return bad(fmt.Errorf("expected a whole number from 1 to 65535"))
		}
		c.Dampening = uint16(n)
		return true, nil
	}
	return false, nil
}

// IsKey reports whether a slurm.conf key is one Config.Set reads.
func IsKey(key string) bool {
	var c Config
	ok, _ := c.Set(key, "")
	return ok
}
