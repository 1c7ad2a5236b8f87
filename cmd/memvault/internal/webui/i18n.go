package webui

import (
	"sort"
	"strconv"
	"strings"
)

// Languages of the pages: English, and Chinese for browsers that ask for it.
const (
	langEN = "en"
	langZH = "zh-CN"
)

// messages holds each UI string in English and Chinese; a key missing in
// Chinese falls back to English (TestMessagesComplete checks none is).
var messages = map[string][2]string{
	"app":               {"memvault", "memvault"},
	"skip":              {"Skip to content", "跳到正文"},
	"nav":               {"Main", "主导航"},
	"overview":          {"Overview", "概览"},
	"search":            {"Search", "搜索"},
	"timeline":          {"Timeline", "时间线"},
	"review":            {"Review", "复查"},
	"diff":              {"Branch diff", "分支差异"},
	"query":             {"Question or keywords", "问题或关键词"},
	"go":                {"Search", "搜索"},
	"memories":          {"Memories", "记忆"},
	"by_layer":          {"By layer", "按层"},
	"by_status":         {"By status", "按状态"},
	"total":             {"Total", "总数"},
	"in_force":          {"In force", "生效中"},
	"last7":             {"Changed in the last 7 days", "最近 7 天的变更"},
	"nothing_recent":    {"No commit touched the vault in the last 7 days.", "最近 7 天没有提交改动记忆库。"},
	"headlines":         {"To review", "待复查"},
	"recent_memories":   {"Recently updated memories", "最近更新的记忆"},
	"when":              {"When", "时间"},
	"who":               {"Who", "作者"},
	"client":            {"Client", "客户端"},
	"why":               {"Why", "原因"},
	"what":              {"What", "内容"},
	"layer":             {"Layer", "层"},
	"tag":               {"Tag", "标签"},
	"author":            {"Author", "作者"},
	"filter":            {"Filter", "筛选"},
	"all":               {"all", "全部"},
	"older":             {"Older commits", "更早的提交"},
	"newest":            {"Newest commits", "最新的提交"},
	"no_commits":        {"No commit matches.", "没有匹配的提交。"},
	"scanned":           {"Searched %d commits without filling the page.", "已查看 %d 个提交，本页未填满。"},
	"no_git":            {"This vault is not in a git repository: it has no history.", "此记忆库不在 git 仓库中，没有历史。"},
	"results_for":       {"Results for", "搜索结果："},
	"no_results":        {"No memory answers this question.", "没有记忆回答这个问题。"},
	"strong":            {"strong match", "强匹配"},
	"weak":              {"weak match", "弱匹配"},
	"matched_terms":     {"Matched terms", "匹配的词"},
	"possible_conflict": {"Possible conflict with", "可能冲突："},
	"front_matter":      {"Front matter", "元数据"},
	"body":              {"Body", "正文"},
	"staleness":         {"Staleness", "是否过时"},
	"fresh":             {"Matches its code as far as memvault can tell.", "就 memvault 所知，与代码一致。"},
	"chain":             {"Supersession chain", "取代链"},
	"replaces":          {"replaces", "取代了"},
	"replaced_by":       {"Replaced by", "被取代于"},
	"no_chain":          {"It replaces no memory and none replaces it.", "它没有取代其他记忆，也没有被取代。"},
	"rivals":            {"Rivals", "对立规则"},
	"no_rivals":         {"No rival rule.", "没有对立规则。"},
	"history":           {"History", "历史"},
	"no_history":        {"Never committed.", "从未提交。"},
	"fields":            {"Fields", "字段"},
	"body_diff":         {"Body diff", "正文差异"},
	"more_lines":        {"%d more lines", "另有 %d 行"},
	"links":             {"Links", "链接"},
	"not_found":         {"Not found", "未找到"},
	"no_memory":         {"No memory has this id.", "没有这个 id 的记忆。"},
	"deleted":           {"This memory was deleted; its history remains.", "此记忆已删除，历史仍在。"},
	"range":             {"Range (BASE...HEAD)", "范围（BASE...HEAD）"},
	"compare":           {"Compare", "比较"},
	"diff_intro":        {"What a branch taught the assistants: the memories it added, changed, superseded and forgot, as memvault diff --markdown prints them.", "一个分支教给助手的内容：新增、修改、取代和遗忘的记忆，与 memvault diff --markdown 相同。"},
	"no_changes":        {"No memory changed.", "没有记忆变化。"},
	"kind":              {"Change", "变化"},
	"title":             {"Title", "标题"},
	"stale":             {"Stale", "过时"},
	"expiring":          {"Expiring or taking effect", "即将过期或生效"},
	"conflicted":        {"Conflicted", "合并冲突"},
	"duplicates":        {"Duplicates", "重复"},
	"dangling":          {"Dangling links and refs", "悬空链接和引用"},
	"unused":            {"Unused", "未使用"},
	"nothing":           {"Nothing.", "无。"},
	"with":              {"with", "相关："},
	"suggested":         {"suggested title", "建议标题"},
	"live":              {"The vault changed.", "记忆库已变更。"},
	"reload":            {"Reload", "刷新"},
	"actions":           {"Actions", "操作"},
	"reason":            {"Reason", "原因"},
	"confirm":           {"Confirm it still holds", "确认仍然有效"},
	"forget":            {"Forget (archive)", "遗忘（归档）"},
	"resolve":           {"Keep this one, supersede the rival", "保留此条，取代对立规则"},
	"read_only":         {"Read-only view: start memvault ui --write to confirm, forget or resolve rivals here.", "只读视图：用 memvault ui --write 启动后可在此确认、遗忘或解决对立规则。"},
	"error":             {"Error", "错误"},
	"footer":            {"vault", "记忆库"},
	"commits":           {"commits", "个提交"},
	"day":               {"Day", "日期"},
	"page_of":           {"Commits", "提交"},
}

// lang picks the page language from an Accept-Language header: Chinese
// when the browser prefers Chinese to English, else English.
func lang(header string) string {
	type pref struct {
		tag string
		q   float64
		i   int
	}
	var prefs []pref
	for i, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if tag != "" && q > 0 {
			prefs = append(prefs, pref{strings.ToLower(tag), q, i})
		}
	}
	sort.SliceStable(prefs, func(a, b int) bool { return prefs[a].q > prefs[b].q })
	for _, p := range prefs {
		switch {
		case p.tag == "zh" || strings.HasPrefix(p.tag, "zh-"):
			return langZH
		case p.tag == "en" || strings.HasPrefix(p.tag, "en-"):
			return langEN
		}
	}
	return langEN
}

// text is the string of key in language l.
func text(l, key string) string {
	m, ok := messages[key]
	if !ok {
		return key
	}
	if l == langZH && m[1] != "" {
		return m[1]
	}
	return m[0]
}
