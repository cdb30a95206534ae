package priority

import "testing"

func TestParseFlagsAsSlurmctld(t *testing.T) {
	tests := []struct {
		in   string
		want Flags
	}{
		{"", FairTree},
		{"ACCRUE_ALWAYS", FairTree | AccrueAlways},
		{"NO_FAIR_TREE", 0},
		{"depth_oblivious", DepthOblivious},
		{"DEPTH_OBLIVIOUS,NO_FAIR_TREE", DepthOblivious},
		{"MAX_TRES", FairTree | MaxTRES},
		{"MAX_TRES_GRES", FairTree | MaxTRESGRES},
		{"NO_NORMAL_ALL", FairTree | NoNormalAssoc | NoNormalPart | NoNormalQOS | NoNormalTRES},
		{"NO_NORMAL_QOS,SMALL_RELATIVE_TO_TIME,CALCULATE_RUNNING,INCR_ONLY",
			FairTree | NoNormalQOS | SmallRelativeToTime | CalculateRunning | IncrOnly},
	}
	for _, tt := range tests {
		if got := ParseFlags(tt.in); got != tt.want {
			t.Errorf("ParseFlags(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestConfigSetReadsPriorityKeys(t *testing.T) {
	c := DefaultConfig()
	for _, kv := range [][2]string{
		{"PriorityType", "priority/basic"}, {"PriorityWeightAge", "1000"}, {"priorityweightfairshare", "2000"},
		{"PriorityMaxAge", "1-0"}, {"PriorityDecayHalfLife", "0-2"}, {"PriorityCalcPeriod", "2"},
		{"PriorityFavorSmall", "YES"}, {"PriorityUsageResetPeriod", "weekly"}, {"FairShareDampeningFactor", "3"},
	} {
		if ok, err := c.Set(kv[0], kv[1]); !ok || err != nil {
			t.Fatalf("Set(%s=%s) = %v, %v", kv[0], kv[1], ok, err)
		}
	}
	if c.Multifactor || c.WeightAge != 1000 || c.WeightFairshare != 2000 || c.MaxAge != 86400 ||
		c.DecayHalfLife != 7200 || c.CalcPeriod != 120 || !c.FavorSmall || c.UsageReset != ResetWeekly || c.Dampening != 3 {
		t.Errorf("config = %+v", c)
	}
	if ok, _ := c.Set("SchedulerType", "sched/backfill"); ok {
		t.Error("SchedulerType taken as a priority key")
	}
	for _, kv := range [][2]string{{"PriorityWeightAge", "-1"}, {"PriorityCalcPeriod", "0"}, {"PriorityUsageResetPeriod", "hourly"}, {"PriorityType", "priority/other"}} {
		if _, err := c.Set(kv[0], kv[1]); err == nil {
			t.Errorf("Set(%s=%s) accepted", kv[0], kv[1])
		}
	}
}

func TestBasicPriorityIsOneBelowTheLastWithNice(t *testing.T) {
	tests := []struct {
		last uint32
		nice int32
		want uint32
	}{
		{100, 0, 99},
		{1, 0, 1},
		{0, 0, 1},
		{100, 10, 89},
		{100, -10, 109},
		{10, 9, 9}, // 9 > 9+1 is false: nice not applied
		{10, 7, 2},
	}
	for _, tt := range tests {
		if got := BasicPriority(tt.last, tt.nice); got != tt.want {
			t.Errorf("BasicPriority(%d, %d) = %d, want %d", tt.last, tt.nice, got, tt.want)
		}
	}
}
