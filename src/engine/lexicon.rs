//! Lexical data tables of the `graphify-0.47` profile (spec Appendix B, §3, §4.4, §5).
//!
//! Pure data: no logic lives here. Order matters where noted (the Korean dictionary's
//! order drives the substring pass of the query expansion).

/// Korean → English query expansion (Appendix B.1). Order matters.
pub const KO_EXPANSIONS: &[(&str, &[&str])] = &[
    ("생성", &["creat", "add", "new"]),
    ("만들기", &["creat", "add", "new"]),
    ("추가", &["add", "creat", "insert"]),
    ("등록", &["register", "creat", "add"]),
    ("삭제", &["delet", "remov", "drop"]),
    ("제거", &["remov", "delet"]),
    ("수정", &["updat", "modifi", "edit", "patch"]),
    ("변경", &["chang", "updat", "modifi"]),
    ("편집", &["edit", "modifi"]),
    ("조회", &["get", "list", "fetch", "retriev", "read"]),
    ("검색", &["search", "find", "query", "lookup"]),
    ("확인", &["check", "verifi", "valid"]),
    ("보기", &["view", "show", "display", "get"]),
    ("가져오기", &["fetch", "get", "retriev", "import"]),
    ("내보내기", &["export"]),
    ("읽기", &["read", "get"]),
    ("쓰기", &["writ", "post", "put"]),
    ("작성", &["creat", "submit", "writ", "compos"]),
    ("전송", &["send", "transmit", "post"]),
    ("요청", &["request", "call", "invok"]),
    ("실행", &["execut", "run", "invok"]),
    ("시작", &["start", "begin", "launch", "init"]),
    ("중지", &["stop", "halt", "paus"]),
    ("재시작", &["restart", "reboot"]),
    ("취소", &["cancel", "abort", "revok"]),
    ("복사", &["copi", "clone", "duplic"]),
    ("이동", &["mov", "transfer", "migrat"]),
    ("설정", &["set", "configur", "prefer"]),
    ("적용", &["appli", "deploy"]),
    ("승인", &["approv", "accept", "confirm"]),
    ("거부", &["reject", "deni", "declin"]),
    ("활성화", &["enabl", "activ"]),
    ("비활성화", &["disabl", "deactiv"]),
    ("장바구니", &["cart", "shopping", "basket"]),
    ("상품", &["product", "item", "good"]),
    ("주문", &["order", "purchas"]),
    ("결제", &["payment", "checkout", "pay", "billing"]),
    (
        "정산",
        &["settlement", "adjust", "adjustment", "pg", "대사"],
    ),
    (
        "비교",
        &[
            "compare",
            "comparison",
            "reconcile",
            "reconciliation",
            "대사",
        ],
    ),
    ("환불", &["refund", "return"]),
    ("배송", &["shipping", "deliver", "shipment"]),
    ("배송비", &["shipping", "rate", "calculat", "cost"]),
    ("쿠폰", &["coupon", "discount", "voucher", "promo"]),
    ("할인", &["discount", "sale", "promo"]),
    ("찜", &["wishlist", "favorit", "bookmark"]),
    ("재고", &["inventori", "stock", "availab"]),
    ("후기", &["review", "feedback", "comment"]),
    ("평점", &["rate", "rating", "score"]),
    ("카테고리", &["categori", "tag", "group"]),
    ("번호", &["id", "no", "number", "num"]),
    ("코드", &["code", "cd"]),
    ("명", &["name", "nm"]),
    (
        "상품번호",
        &["good", "goods", "product", "item", "no", "id", "number"],
    ),
    (
        "상품명",
        &["good", "goods", "product", "item", "name", "nm"],
    ),
    ("브랜드", &["brand"]),
    ("브랜드번호", &["brand", "no", "id", "number"]),
    ("브랜드명", &["brand", "name", "nm"]),
    ("고객", &["customer", "cust", "user", "member"]),
    (
        "고객번호",
        &["customer", "cust", "user", "member", "no", "id", "number"],
    ),
    (
        "회원번호",
        &["member", "user", "account", "no", "id", "number"],
    ),
    (
        "주문번호",
        &["order", "ord", "purchase", "no", "id", "number"],
    ),
    (
        "배송번호",
        &["shipping", "deliver", "shipment", "no", "id", "number"],
    ),
    (
        "카테고리번호",
        &["categori", "category", "cate", "no", "id", "number"],
    ),
    ("사용자", &["user", "account"]),
    ("회원", &["user", "member", "account"]),
    ("관리자", &["admin", "administr"]),
    ("프로필", &["profil"]),
    ("계정", &["account"]),
    ("로그인", &["login", "signin", "auth"]),
    ("로그아웃", &["logout", "signout"]),
    ("비밀번호", &["password", "secret", "credenti"]),
    ("인증", &["auth", "verifi", "token"]),
    ("권한", &["permiss", "role", "access", "author"]),
    ("버튼", &["button", "btn"]),
    ("토큰", &["token", "jwt", "api_key"]),
    ("목록", &["list", "index", "collect"]),
    ("상세", &["detail", "info", "describ"]),
    ("파일", &["file", "document"]),
    ("폴더", &["folder", "directori"]),
    ("이미지", &["imag", "photo", "pictur"]),
    ("업로드", &["upload"]),
    ("다운로드", &["download"]),
    ("첨부", &["attach", "upload"]),
    ("데이터", &["data", "record", "entri"]),
    ("데이터베이스", &["databas", "db", "store"]),
    ("테이블", &["tabl", "schema"]),
    ("메시지", &["messag", "notif", "alert"]),
    ("알림", &["notif", "alert", "push"]),
    ("이메일", &["email", "mail"]),
    ("문의", &["qa", "inquiry"]),
    ("댓글", &["comment", "reply"]),
    ("게시글", &["post", "articl", "content"]),
    ("태그", &["tag", "label"]),
    ("로그", &["log", "audit", "histori"]),
    ("서버", &["server", "host", "instanc"]),
    ("컨테이너", &["container", "docker", "pod"]),
    ("배포", &["deploy", "releas", "rollout"]),
    ("빌드", &["build", "compil"]),
    ("네트워크", &["network", "connect"]),
    ("포트", &["port"]),
    ("도메인", &["domain", "dns", "host"]),
    ("클러스터", &["cluster"]),
    ("노드", &["node"]),
    ("볼륨", &["volum", "storag", "disk"]),
    ("네임스페이스", &["namespac"]),
    ("서비스", &["servic"]),
    ("레플리카", &["replica", "scale"]),
    ("시크릿", &["secret", "credenti"]),
    ("설정맵", &["configmap", "config"]),
    ("인그레스", &["ingress", "rout"]),
    ("모니터링", &["monitor", "metric", "observ"]),
    ("스케일", &["scale", "autoscal"]),
    ("브랜치", &["branch"]),
    ("커밋", &["commit"]),
    ("머지", &["merg", "pull_request"]),
    ("풀리퀘스트", &["pull_request", "pr", "merg"]),
    ("저장소", &["repositori", "repo"]),
    ("이슈", &["issu", "ticket", "bug"]),
    ("릴리스", &["releas", "version", "tag"]),
    ("응답", &["respons"]),
    ("상태", &["status", "state", "health"]),
    ("버전", &["version"]),
    ("정렬", &["sort", "order"]),
    ("필터", &["filter", "where"]),
    ("페이지", &["page", "pagin", "offset", "limit"]),
    ("크기", &["size", "length", "count"]),
    ("전체", &["all", "total", "list"]),
    ("최신", &["latest", "recent", "newest"]),
    ("통계", &["statist", "analyt", "metric", "report"]),
    ("요약", &["summary", "summari"]),
    ("대시보드", &["dashboard", "overview"]),
    ("웹훅", &["webhook", "callback"]),
    ("연동", &["integr", "connect", "link"]),
];

/// English query synonyms (Appendix B.2).
pub const EN_SYNONYMS: &[(&str, &[&str])] = &[
    ("geographic", &["geo"]),
    ("geographical", &["geo"]),
    ("hypotenuse", &["hypot", "norm"]),
    ("euclidean", &["hypot", "norm"]),
    ("series", &["sequence"]),
    ("covered", &["travel", "traveled"]),
    ("cover", &["travel", "traveled"]),
    ("signing", &["historical", "event", "date"]),
    ("treaty", &["historical", "event", "date"]),
    (
        "invented",
        &["inven", "invention", "inventor", "science", "historical"],
    ),
    (
        "invent",
        &["inven", "invention", "inventor", "science", "historical"],
    ),
    ("theory", &["science", "inven", "invention", "discovery"]),
];

/// Base query stopwords (§3.3).
pub const BASE_STOPWORDS: &[&str] = &[
    "the", "a", "an", "of", "for", "to", "in", "by", "is", "and", "or",
];

/// Terms never turned into automatic stopwords (§3.3).
pub const PROTECTED_TERMS: &[&str] = &[
    "list", "get", "read", "creat", "delet", "updat", "patch", "put", "post", "watch", "find",
    "search", "writ", "send", "add", "remov", "set",
];

// Intent keyword sets (Appendix B.3) and selector term sets (Appendix B.4).
pub const INTENT_READ: &[&str] = &[
    "browse",
    "check",
    "describe",
    "display",
    "fetch",
    "find",
    "get",
    "inspect",
    "list",
    "lookup",
    "query",
    "read",
    "retrieve",
    "search",
    "show",
    "view",
    "가져오기",
    "가져와",
    "검색",
    "목록",
    "보기",
    "보여",
    "살펴",
    "알려",
    "얻기",
    "얻어",
    "열람",
    "조회",
    "찾기",
    "찾아",
    "표시",
    "확인",
];
pub const INTENT_WRITE: &[&str] = &[
    "activate",
    "add",
    "apply",
    "approve",
    "assign",
    "change",
    "configure",
    "create",
    "deploy",
    "edit",
    "enable",
    "execute",
    "invite",
    "merge",
    "modify",
    "patch",
    "perform",
    "post",
    "process",
    "publish",
    "put",
    "register",
    "request",
    "run",
    "save",
    "send",
    "set",
    "submit",
    "trigger",
    "update",
    "upload",
    "write",
    "고쳐",
    "넣어",
    "등록",
    "만들어",
    "바꿔",
    "변경",
    "생성",
    "설정",
    "수정",
    "업로드",
    "작성",
    "저장",
    "추가",
    "편집",
];
pub const INTENT_DELETE: &[&str] = &[
    "cancel",
    "delete",
    "destroy",
    "disable",
    "drop",
    "erase",
    "purge",
    "remove",
    "revoke",
    "terminate",
    "unregister",
    "비활성화",
    "삭제",
    "없애",
    "제거",
    "지워",
    "취소",
    "폐기",
    "해제",
    "해지",
];
pub const SEL_SEARCH: &[&str] = &[
    "browse",
    "find",
    "list",
    "lookup",
    "query",
    "search",
    "검색",
    "리스트",
    "목록",
    "찾",
];
pub const SEL_READ: &[&str] = &[
    "check", "detail", "get", "read", "retrieve", "show", "view", "보기", "보여", "상세", "알려",
    "조회", "확인",
];
pub const SEL_DETAIL_READ: &[&str] = &["detail", "details", "단건", "상세"];
pub const SEL_SINGLE: &[&str] = &[
    "detail", "details", "info", "single", "view", "단건", "상세", "정보",
];
pub const SEL_LIST: &[&str] = &[
    "find",
    "list",
    "lists",
    "query",
    "search",
    "검색",
    "리스트",
    "목록",
];
pub const SEL_ALL_SCOPE: &[&str] = &["all", "entire", "every", "모든", "전체"];
pub const SEL_FILTERED_SCOPE: &[&str] = &[
    "condition",
    "conditions",
    "filter",
    "filtered",
    "matching",
    "where",
    "검색",
    "조건",
];
pub const SEL_COUNT: &[&str] = &["cnt", "count", "total", "개수", "건수", "카운트"];
pub const SEL_IDENTIFIER: &[&str] = &[
    "code",
    "codes",
    "id",
    "identifier",
    "identifiers",
    "ids",
    "key",
    "keys",
    "no",
    "num",
    "number",
    "numbers",
    "seq",
    "sequence",
    "uuid",
    "번호",
    "식별",
    "식별자",
    "아이디",
    "일련",
    "일련번호",
    "코드",
    "키",
];
pub const SEL_GENERAL_SURFACE: &[&str] = &[
    "base", "basic", "common", "default", "general", "공통", "기본", "일반",
];
pub const SEL_AUDIT_READ: &[&str] = &[
    "audit", "event", "events", "history", "log", "logs", "감사", "기록", "로그", "이력",
];
pub const SEL_AUDIT_COLLECTION: &[&str] = &[
    "audit", "events", "history", "log", "logs", "감사", "기록", "로그", "이력",
];
pub const SEL_CREATE: &[&str] = &[
    "add", "create", "insert", "register", "submit", "write", "등록", "생성", "작성", "추가",
];
pub const SEL_UPDATE: &[&str] = &[
    "change", "edit", "modify", "patch", "put", "set", "update", "변경", "설정", "수정", "편집",
];
pub const SEL_ACTION: &[&str] = &[
    "apply", "approve", "assign", "checkout", "execute", "issue", "process", "run", "send",
    "validate", "검증", "결제", "발급", "부여", "승인", "실행", "적용", "전송", "처리",
];
pub const SEL_NOTIFICATION: &[&str] = &[
    "alert",
    "message",
    "notification",
    "notify",
    "메시지",
    "알림",
];
pub const SEL_NOTIFICATION_SEND: &[&str] = &["notify", "send", "발송", "보내", "전송"];
pub const SEL_DELETE: &[&str] = &[
    "cancel", "delete", "disable", "drop", "remove", "revoke", "삭제", "제거", "철회", "취소",
    "해제",
];
pub const SEL_SURFACE_STOPWORDS: &[&str] = &[
    "and",
    "are",
    "based",
    "can",
    "default",
    "for",
    "from",
    "function",
    "given",
    "into",
    "its",
    "one",
    "optional",
    "parameter",
    "parameters",
    "return",
    "returns",
    "specific",
    "the",
    "this",
    "two",
    "use",
    "used",
    "using",
    "value",
    "with",
    "조건",
    "화면",
];

/// Korean verb endings stripped by the intent classifier (§3.7).
pub const INTENT_VERB_ENDINGS: &[&str] = &[
    "해줘",
    "해주세요",
    "해주실래요",
    "해줄래",
    "해주기",
    "하기",
    "합니다",
    "해요",
    "해봐",
    "하고",
    "해야",
    "하는",
    "해라",
    "하자",
];

/// Korean postpositions stripped by the intent classifier (§3.7).
pub const INTENT_POSTPOSITIONS: &[&str] = &[
    "을", "를", "이", "가", "은", "는", "에", "에서", "에게", "께", "로", "으로", "와", "과", "의",
    "도", "만", "까지", "부터", "라도", "처럼",
];

/// Suffixes stripped from Korean evidence terms (§4.4), first match wins.
pub const EVIDENCE_KO_SUFFIXES: &[&str] = &[
    "해주세요",
    "해줘",
    "합니다",
    "하세요",
    "에서",
    "으로",
    "에게",
    "부터",
    "까지",
    "하고",
    "하며",
    "이라",
    "라고",
    "인",
    "의",
    "을",
    "를",
    "은",
    "는",
    "이",
    "가",
    "와",
    "과",
    "로",
];

/// Evidence action families (§4.4).
pub const ACTION_TERMS: &[(&str, &[&str])] = &[
    (
        "search",
        &["search", "find", "query", "list", "검색", "목록"],
    ),
    (
        "read",
        &[
            "read", "get", "detail", "view", "show", "조회", "상세", "확인",
        ],
    ),
    (
        "create",
        &["create", "add", "register", "등록", "생성", "추가"],
    ),
    (
        "update",
        &["update", "edit", "change", "save", "수정", "저장", "변경"],
    ),
    (
        "delete",
        &["delete", "remove", "cancel", "삭제", "제거", "취소"],
    ),
    (
        "action",
        &[
            "action", "process", "run", "approve", "처리", "실행", "승인",
        ],
    ),
];

/// Evidence result-shape families (§4.4).
pub const SHAPE_TERMS: &[(&str, &[&str])] = &[
    (
        "single",
        &[
            "single",
            "detail",
            "details",
            "info",
            "information",
            "상세",
            "정보",
            "단건",
        ],
    ),
    (
        "list",
        &[
            "list",
            "lists",
            "search",
            "find",
            "query",
            "browse",
            "filter",
            "filtered",
            "matching",
            "condition",
            "conditions",
            "목록",
            "리스트",
            "검색",
            "조건",
        ],
    ),
    (
        "count",
        &["count", "total", "cnt", "건수", "개수", "카운트"],
    ),
    (
        "mutation",
        &[
            "create", "update", "delete", "action", "등록", "수정", "삭제", "처리",
        ],
    ),
];
pub const STRONG_SINGLE_TERMS: &[&str] = &["single", "detail", "details", "상세", "단건"];
pub const WEAK_SINGLE_TERMS: &[&str] = &["info", "information", "정보"];

/// Generic evidence terms (§4.4), without the action/shape members that are added in code.
pub const EVIDENCE_GENERIC_BASE: &[&str] = &[
    "api",
    "data",
    "info",
    "information",
    "manage",
    "management",
    "record",
    "records",
    "tool",
    "use",
    "관리",
    "도구",
    "정보",
];

/// Korean suffixes of the selector's `norm` and contrastive key (§5.2 list K). Order matters.
pub const SELECTOR_KO_SUFFIXES: &[&str] = &[
    "해주세요",
    "해줘",
    "합니다",
    "한다",
    "하려고",
    "으로",
    "에서",
    "에게",
    "에",
    "까지",
    "부터",
    "처럼",
    "하고",
    "하고요",
    "하는",
    "하면",
    "해서",
    "해",
    "의",
    "를",
    "을",
    "로",
    "이",
    "가",
    "은",
    "는",
];

/// Extra generic qualifier terms of the contrastive analysis (§5.4).
pub const CONTRAST_GENERIC_BASE: &[&str] = &[
    "api",
    "by",
    "data",
    "get",
    "info",
    "information",
    "manage",
    "management",
    "mgmt",
    "operation",
    "record",
    "records",
    "tool",
    "관리",
    "도구",
];

/// Generic query terms for `content_term_count` (§5.4).
pub const FACET_GENERIC_BASE: &[&str] = &["api", "please", "show", "__numeric__"];

/// Korean business-phrase multiplier words (§3.5.1).
pub const KO_BRIDGE_WORDS: &[&str] = &["목록", "리스트", "정보", "관리", "대상"];
pub const KO_ACTION_WORDS: &[&str] = &[
    "검색", "조회", "수정", "등록", "삭제", "저장", "처리", "취소", "철회", "승인", "거부", "비교",
    "요약",
];

/// The selector's action and shape families (used to strip generic terms), in one place.
pub const SEL_ACTION_SHAPE_SETS: &[&[&str]] = &[
    SEL_SEARCH, SEL_READ, SEL_SINGLE, SEL_LIST, SEL_COUNT, SEL_CREATE, SEL_UPDATE, SEL_ACTION,
    SEL_DELETE,
];

/// `base` plus the surface stopwords, identifier terms and every action/shape family.
pub fn generic_with(base: &[&'static str]) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = base.to_vec();
    for set in [SEL_SURFACE_STOPWORDS, SEL_IDENTIFIER]
        .iter()
        .chain(SEL_ACTION_SHAPE_SETS.iter())
    {
        v.extend(set.iter().copied());
    }
    v
}
