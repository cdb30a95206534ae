package hpcsim

import (
	"crypto/sha512"
	"encoding/binary"
	"strconv"
)

// mt19937 is the Mersenne Twister (Matsumoto and Nishimura, ACM TOMACS
// 8(1), 1998), the generator behind numpy's legacy RandomState, which the
// method's scripts draw their sequence starts from.
type mt19937 struct {
	mt  [624]uint32
	idx int
}

func (m *mt19937) initGenrand(s uint32) {
	m.mt[0] = s
	for i := 1; i < 624; i++ {
		m.mt[i] = 1812433253*(m.mt[i-1]^(m.mt[i-1]>>30)) + uint32(i)
	}
	m.idx = 624
}

// initByArray seeds from a key, as the reference init_by_array does.
func (m *mt19937) initByArray(key []uint32) {
	m.initGenrand(19650218)
	i, j := 1, 0
	for k := max(624, len(key)); k > 0; k-- {
		m.mt[i] = (m.mt[i] ^ ((m.mt[i-1] ^ (m.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			m.mt[0] = m.mt[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := 623; k > 0; k-- {
		m.mt[i] = (m.mt[i] ^ ((m.mt[i-1] ^ (m.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			m.mt[0] = m.mt[623]
			i = 1
		}
	}
	m.mt[0] = 0x80000000
	m.idx = 624
}

func (m *mt19937) uint32() uint32 {
	if m.idx >= 624 {
		for k := range 624 {
			y := (m.mt[k] & 0x80000000) | (m.mt[(k+1)%624] & 0x7fffffff)
			v := m.mt[(k+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.mt[k] = v
		}
		m.idx = 0
	}
	y := m.mt[m.idx]
	m.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// intn returns an integer in [low, high) as numpy's legacy randint does
// for a range below 2^32: masked rejection on 32-bit draws.
func (m *mt19937) intn(low, high int) int {
	rng := uint32(high - 1 - low)
	if rng == 0 {
		return low
	}
	mask := rng
	for s := 1; s < 32; s *= 2 {
		mask |= mask >> s
	}
	for {
		if v := m.uint32() & mask; v <= rng {
			return low + int(v)
		}
	}
}

// gymSeeded returns the generator OpenAI Gym's seeding.np_random(seed)
// made (gym before 0.22, the version the method's scripts pin): the first
// eight bytes of SHA-512 of the seed's decimal text, read as a
// little-endian integer, split into 32-bit words, low first, seed a
// RandomState through init_by_array.
func gymSeeded(seed uint64) *mt19937 {
	sum := sha512.Sum512([]byte(strconv.FormatUint(seed, 10)))
	v := binary.LittleEndian.Uint64(sum[:8])
	key := []uint32{uint32(v)}
	if v>>32 != 0 {
		key = append(key, uint32(v>>32))
	}
	if v == 0 {
		key = []uint32{0}
	}
	m := &mt19937{}
	m.initByArray(key)
	return m
}
