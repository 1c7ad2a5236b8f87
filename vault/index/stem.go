package index

import "unicode/utf8"

// englishStops are dropped from the index and from queries. The list is
// deliberately small: words that carry meaning in engineering notes ("new",
// "old", "not", "never", "before", "after") stay.
var englishStops = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range []string{
		"a", "an", "the", "and", "or", "but", "if", "then", "of", "at", "by", "for",
		"with", "about", "to", "from", "in", "on", "into", "onto", "is", "are", "was",
		"were", "be", "been", "being", "am", "do", "does", "did", "doing", "have", "has",
		"had", "having", "it", "its", "this", "that", "these", "those", "there", "here",
		"i", "me", "my", "we", "us", "our", "ours", "you", "your", "yours", "he", "him",
		"his", "she", "her", "they", "them", "their", "what", "which", "who", "whom",
		"whose", "when", "where", "why", "how", "can", "could", "should", "would",
		"will", "shall", "may", "might", "must", "so", "such", "than", "too", "very",
		"just", "also", "as", "any", "some", "each", "both", "own", "same", "s", "t",
		"d", "ll", "re", "ve", "m", "e.g", "i.e", "etc", "via", "whether", "let",
		"lets", "get", "got", "use", "used", "using", "please", "tell", "show", "know",
		"want", "need", "like", "ever",
	} {
		m[w] = struct{}{}
	}
	return m
}()

// stopFilter and exceptionFilter say, by length and first byte, whether a
// word can be in englishStops or stemExceptions; most words skip the map.
var (
	stopFilter      = lengthFirstFilter(englishStops)
	exceptionFilter = lengthFirstFilter(stemExceptions)
)

type lenFirst [16][256]bool

func lengthFirstFilter(m map[string]struct{}) *lenFirst {
	var f lenFirst
	for w := range m {
		f[len(w)][w[0]] = true
	}
	return &f
}

func (f *lenFirst) mayContain(w []byte) bool {
	return len(w) > 0 && len(w) < len(f) && f[len(w)][w[0]]
}

func isStopWord(w []byte) bool {
	if !stopFilter.mayContain(w) {
		return false
	}
	_, ok := englishStops[string(w)]
	return ok
}

// cjkStops are Chinese function words and question words. They split CJK
// runs (both when indexing and when querying) so that "支付的回调" indexes
// as 支付 + 回调 instead of also producing the noise bigrams 付的 and 的回.
// Question words still drive paraphrase expansion, which looks at the query
// before this split.
var cjkStops = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range []string{
		"的", "了", "吗", "呢", "吧", "啊", "呀", "哦", "嘛", "么",
		"什么", "怎么", "怎样", "怎么样", "如何", "哪个", "哪些", "哪里", "哪儿",
		"是否", "是不是", "会不会", "有没有", "能不能", "可不可以", "要不要",
		"我们", "你们", "他们", "这个", "那个", "这些", "那些", "一下", "为什么",
		"为何", "多少", "多久", "几个", "请问",
	} {
		m[w] = struct{}{}
	}
	return m
}()

// cjkStopMaxRunes is the longest entry of cjkStops.
const cjkStopMaxRunes = 4

// cjkStopStart is a bitmap over the Basic Multilingual Plane of the runes
// that start an entry of cjkStops, so most characters cost one bit test.
var cjkStopStart = func() *[1 << 16 / 64]uint64 {
	var bits [1 << 16 / 64]uint64
	for w := range cjkStops {
		r, _ := utf8.DecodeRuneInString(w)
		bits[r>>6] |= 1 << (r & 63)
	}
	return &bits
}()

// cjkStopAt returns the byte length of the longest Chinese stop word that
// s starts with, or 0.
func cjkStopAt(s string) int {
	if r, _ := decode(s, 0); r >= 1<<16 || cjkStopStart[r>>6]&(1<<(r&63)) == 0 {
		return 0
	}
	end := 0
	best := 0
	for n := 1; n <= cjkStopMaxRunes && end < len(s); n++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
		if _, ok := cjkStops[s[:end]]; ok {
			best = end
		}
	}
	return best
}

// stemExceptions are left alone by stem: their endings look like plurals
// or suffixes but are not.
var stemExceptions = map[string]struct{}{
	"redis": {}, "kubernetes": {}, "postgres": {}, "jenkins": {}, "https": {},
	"series": {}, "species": {}, "news": {}, "always": {}, "perhaps": {},
	"canvas": {}, "atlas": {}, "bias": {}, "alias": {}, "thus": {}, "plus": {},
	"status": {}, "nginx": {}, "ios": {}, "macos": {}, "windows": {}, "sas": {},
	"dns": {}, "cms": {}, "sms": {}, "aws": {}, "ecs": {}, "oss": {}, "kms": {},
	"rds": {}, "mqs": {}, "qps": {}, "tps": {}, "rps": {}, "fps": {}, "pos": {},
	"cors": {}, "apis": {}, "less": {}, "sass": {}, "pass": {}, "nas": {},
	"xss": {}, "css": {}, "ssl": {}, "tls": {}, "k8s": {}, "ics": {}, "vs": {},
	"during": {}, "string": {}, "thing": {}, "nothing": {}, "something": {},
	"everything": {}, "anything": {}, "spring": {}, "ring": {}, "king": {},
	"ping": {}, "bling": {}, "sling": {},
}

// stem is a light, conservative English stemmer in the spirit of Porter's
// step 1: plurals, -ed and -ing, a final y -> i and a final silent e, so that
// "created", "creates", "creating" and "create" meet, as do "policy" and
// "policies". It changes only lowercase ASCII words of four or more letters
// and may rewrite w in place.
func stem(w []byte) []byte {
	n := len(w)
	if n <= 3 {
		return w
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return w
		}
	}
	if exceptionFilter.mayContain(w) {
		if _, ok := stemExceptions[string(w)]; ok {
			return w
		}
	}
	// Plurals.
	switch {
	case hasSuffix(w, "sses"):
		w = w[:n-2]
	case hasSuffix(w, "ies"):
		w = w[:n-2]
	case hasSuffix(w, "ss"), hasSuffix(w, "us"), hasSuffix(w, "is"), hasSuffix(w, "as"):
	case hasSuffix(w, "s"):
		w = w[:n-1]
	}
	// -ed and -ing.
	fix := false
	switch {
	case hasSuffix(w, "eed"):
	case hasSuffix(w, "ed") && hasVowel(w[:len(w)-2]):
		w = w[:len(w)-2]
		fix = true
	case hasSuffix(w, "ing") && hasVowel(w[:len(w)-3]):
		w = w[:len(w)-3]
		fix = true
	}
	if fix {
		m := len(w)
		switch {
		case hasSuffix(w, "at"), hasSuffix(w, "bl"), hasSuffix(w, "iz"):
			w = append(w, 'e')
		case m >= 2 && w[m-1] == w[m-2] && !isVowel(w[m-1]) && w[m-1] != 'l' && w[m-1] != 's' && w[m-1] != 'z':
			w = w[:m-1]
		case m == 2 || m == 3 && !isVowel(w[0]) && isVowel(w[1]) && !isVowel(w[2]) &&
			w[2] != 'w' && w[2] != 'x' && w[2] != 'y':
			w = append(w, 'e')
		}
	}
	// Final y after a consonant becomes i (policy, policies -> polici).
	if m := len(w); m > 3 && w[m-1] == 'y' && !isVowel(w[m-2]) {
		w[m-1] = 'i'
	}
	// Final silent e (create, created -> creat), but keep short words whole.
	if m := len(w); m >= 5 && w[m-1] == 'e' {
		w = w[:m-1]
	}
	return w
}

func hasSuffix(w []byte, suf string) bool {
	return len(w) >= len(suf) && string(w[len(w)-len(suf):]) == suf
}

func isVowel(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		if isVowel(c) || c == 'y' {
			return true
		}
	}
	return false
}

// cjkDeterminers are the Chinese counterparts of the English stop words a,
// an, some, any and each. They stay in the index and in queries, but a
// query term among them weighs wDeterminer: at full weight a question's
// 一个 was one of its concepts, and a memory that said 一个 in passing
// covered it as well as one that answered the question.
var cjkDeterminers = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range []string{
		"一个", "一些", "一种", "任何", "每个",
	} {
		m[w] = struct{}{}
	}
	return m
}()
