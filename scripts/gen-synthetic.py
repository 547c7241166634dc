#!/usr/bin/env python3
"""Deterministic synthetic workload for toolscope benchmarks (our own generator).

Spec only (plain python3, no dependencies):

    scripts/gen-synthetic.py N -o bench/synthetic-10k.openapi.json [--queries Q.txt] [--seed S]

writes an OpenAPI 3.0.3 document with exactly N operations and, with --queries, a query file
(English and Korean lines that hit the generated vocabulary, spread over all N operations).

Collection artifact (needs the reference python, see scripts/reference-env.sh):

    "$PY" scripts/gen-synthetic.py N --artifact bench/synthetic-50k.collection.json.gz \
        [--chunk 1000] [--queries Q.txt] [--build-timeout SECONDS]

builds the spec into a graph-tool-call 0.47.0 collection artifact with
build_openapi_collection_artifact(spec) (json.dumps(indent=2, ensure_ascii=False,
default=str), gzip -9 without name/mtime). With --chunk C (and N > C) the spec is cut into
self-contained sub-specs of about C operations along resource-group (domain) boundaries,
each sub-spec is built by the reference on its own, and the artifacts are merged ("tiled"):
tools, nodes and edges are concatenated — operation ids are globally unique in the spec, so
no renaming is needed — and the first tile's collection-level metadata is kept, with the
counts that describe the merged graph updated. Edges between tools of different tiles are
then missing (the reference never saw them together); everything inside a tile is exactly
what the reference built. See scripts/README.md ("Benchmarks against the reference") for why.

The spec: domains (modules) x resources, each resource with CRUD + search/count/export,
a few domain actions (approve, cancel, archive, ...), sub-resources under deep paths, bulk
deletes, path/query/header parameters, shared component schemas and parameters ($ref), foreign
keys between resources of a domain (so the reference finds data-flow edges), and Korean
summaries on about a third of the operations. Everything depends only on --seed and the
position of a resource, so the operations of a smaller N are a prefix of a larger N.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import sys
import time

# --- vocabulary --------------------------------------------------------------------------
# (slug, English label, Korean label)
DOMAINS = [
    ("billing", "billing", "결제"), ("inventory", "inventory", "재고"), ("fleet", "fleet", "차량 관리"),
    ("clinic", "clinic", "진료"), ("warehouse", "warehouse", "창고"), ("payroll", "payroll", "급여"),
    ("crm", "CRM", "고객 관리"), ("support", "support", "고객 지원"), ("catalog", "catalog", "카탈로그"),
    ("shipping", "shipping", "배송"), ("marketing", "marketing", "마케팅"), ("analytics", "analytics", "분석"),
    ("identity", "identity", "계정"), ("compliance", "compliance", "규정 준수"),
    ("procurement", "procurement", "구매"), ("logistics", "logistics", "물류"), ("hr", "HR", "인사"),
    ("finance", "finance", "재무"), ("learning", "learning", "교육"), ("events", "events", "행사"),
    ("facilities", "facilities", "시설"), ("energy", "energy", "에너지"), ("insurance", "insurance", "보험"),
    ("lending", "lending", "대출"), ("media", "media", "미디어"), ("telemetry", "telemetry", "원격 측정"),
    ("devices", "devices", "기기"), ("scheduling", "scheduling", "일정"), ("ticketing", "ticketing", "티켓"),
    ("projects", "projects", "프로젝트"), ("documents", "documents", "문서"), ("legal", "legal", "법무"),
    ("tax", "tax", "세무"), ("hospitality", "hospitality", "숙박"), ("travel", "travel", "여행"),
    ("retail", "retail", "매장"), ("manufacturing", "manufacturing", "생산"), ("quality", "quality", "품질"),
    ("maintenance", "maintenance", "정비"), ("security", "security", "보안"), ("audit", "audit", "감사"),
    ("messaging", "messaging", "메시지"), ("storage", "storage", "스토리지"), ("compute", "compute", "컴퓨팅"),
    ("networking", "networking", "네트워크"), ("registry", "registry", "레지스트리"),
    ("reporting", "reporting", "보고서"), ("sales", "sales", "영업"), ("partners", "partners", "파트너"),
    ("subscriptions", "subscriptions", "구독"), ("loyalty", "loyalty", "멤버십"), ("pricing", "pricing", "가격"),
    ("claims", "claims", "청구 심사"), ("pharmacy", "pharmacy", "약국"), ("lab", "lab", "검사실"),
    ("research", "research", "연구"), ("grants", "grants", "지원금"), ("housing", "housing", "주거"),
    ("transit", "transit", "대중교통"), ("parking", "parking", "주차"), ("agriculture", "agriculture", "농업"),
    ("recycling", "recycling", "재활용"), ("education", "education", "학사"), ("library", "library", "도서관"),
]

# (singular, plural, Korean)
NOUNS = [
    ("invoice", "invoices", "청구서"), ("vehicle", "vehicles", "차량"), ("patient", "patients", "환자"),
    ("order", "orders", "주문"), ("shipment", "shipments", "출고"), ("employee", "employees", "직원"),
    ("customer", "customers", "고객"), ("ticket", "tickets", "티켓"), ("product", "products", "상품"),
    ("campaign", "campaigns", "캠페인"), ("report", "reports", "리포트"), ("account", "accounts", "계정"),
    ("policy", "policies", "정책"), ("supplier", "suppliers", "공급사"), ("route", "routes", "경로"),
    ("contract", "contracts", "계약"), ("course", "courses", "강좌"), ("venue", "venues", "장소"),
    ("room", "rooms", "객실"), ("meter", "meters", "계량기"), ("claim", "claims", "청구"),
    ("loan", "loans", "대출 건"), ("asset", "assets", "자산"), ("sensor", "sensors", "센서"),
    ("device", "devices", "기기"), ("appointment", "appointments", "예약"), ("booking", "bookings", "예매"),
    ("task", "tasks", "작업"), ("document", "documents", "문서"), ("case", "cases", "사건"),
    ("filing", "filings", "신고"), ("reservation", "reservations", "예약 건"), ("itinerary", "itineraries", "여정"),
    ("store", "stores", "점포"), ("batch", "batches", "배치"), ("inspection", "inspections", "검사"),
    ("work_order", "work_orders", "작업 지시"), ("incident", "incidents", "보안 사고"),
    ("finding", "findings", "감사 결과"), ("message", "messages", "메시지"), ("bucket", "buckets", "버킷"),
    ("instance", "instances", "인스턴스"), ("subnet", "subnets", "서브넷"), ("image", "images", "이미지"),
    ("dashboard", "dashboards", "대시보드"), ("lead", "leads", "잠재 고객"), ("partner", "partners", "파트너사"),
    ("plan", "plans", "요금제"), ("reward", "rewards", "리워드"), ("price_list", "price_lists", "가격표"),
    ("prescription", "prescriptions", "처방전"), ("sample", "samples", "검체"), ("study", "studies", "연구 과제"),
    ("application", "applications", "신청서"), ("tenant", "tenants", "입주자"), ("stop", "stops", "정류장"),
    ("permit", "permits", "허가증"), ("field", "fields", "농지"), ("pickup", "pickups", "수거"),
    ("student", "students", "학생"), ("loan_item", "loan_items", "대여 도서"), ("coupon", "coupons", "쿠폰"),
    ("payment", "payments", "결제 건"), ("refund", "refunds", "환불"), ("return", "returns", "반품"),
    ("warehouse_bin", "warehouse_bins", "보관 위치"), ("driver", "drivers", "운전자"), ("trip", "trips", "운행"),
    ("member", "members", "회원"), ("review", "reviews", "리뷰"), ("question", "questions", "문의"),
    ("template", "templates", "템플릿"), ("webhook", "webhooks", "웹훅"), ("api_key", "api_keys", "API 키"),
    ("role", "roles", "역할"), ("team", "teams", "팀"), ("budget", "budgets", "예산"),
    ("expense", "expenses", "경비"), ("timesheet", "timesheets", "근무표"), ("shift", "shifts", "근무조"),
    ("certificate", "certificates", "인증서"), ("license", "licenses", "라이선스"), ("quote", "quotes", "견적"),
    ("opportunity", "opportunities", "영업 기회"), ("segment", "segments", "세그먼트"),
    ("survey", "surveys", "설문"), ("forecast", "forecasts", "예측"), ("alert", "alerts", "알림"),
    ("schedule", "schedules", "스케줄"), ("vendor", "vendors", "협력사"), ("catalog_item", "catalog_items", "카탈로그 항목"),
    ("lot", "lots", "로트"), ("recipe", "recipes", "레시피"), ("machine", "machines", "설비"),
    ("part", "parts", "부품"), ("warranty", "warranties", "보증"), ("checklist", "checklists", "체크리스트"),
    ("volume", "volumes", "볼륨"), ("snapshot", "snapshots", "스냅샷"), ("cluster", "clusters", "클러스터"),
    ("gateway", "gateways", "게이트웨이"), ("domain_name", "domain_names", "도메인"), ("artifact", "artifacts", "아티팩트"),
    ("channel", "channels", "채널"), ("playlist", "playlists", "재생 목록"), ("episode", "episodes", "에피소드"),
    ("grant", "grants", "지원 사업"), ("lease", "leases", "임대 계약"), ("unit", "units", "세대"),
    ("fare", "fares", "요금"), ("zone", "zones", "구역"), ("harvest", "harvests", "수확"),
    ("container", "containers", "수거함"), ("enrollment", "enrollments", "수강 신청"), ("hold", "holds", "예약 도서"),
]

# status enums per resource (one picked by position)
STATUS_SETS = [
    ["DRAFT", "ACTIVE", "SUSPENDED", "CLOSED"],
    ["PENDING", "APPROVED", "REJECTED", "CANCELLED"],
    ["OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED"],
    ["REQUESTED", "CONFIRMED", "COMPLETED", "CANCELLED"],
    ["NEW", "QUALIFIED", "WON", "LOST"],
]

# custom actions: (verb, English summary verb, Korean verb, http method)
ACTIONS = [
    ("approve", "Approve", "승인", "post"), ("reject", "Reject", "반려", "post"),
    ("cancel", "Cancel", "취소", "post"), ("archive", "Archive", "보관 처리", "post"),
    ("restore", "Restore", "복원", "post"), ("assign", "Assign", "담당자 지정", "post"),
    ("publish", "Publish", "게시", "post"), ("suspend", "Suspend", "일시 정지", "post"),
    ("activate", "Activate", "활성화", "post"), ("verify", "Verify", "검증", "post"),
    ("close", "Close", "종료", "post"), ("reopen", "Reopen", "재개", "post"),
    ("duplicate", "Duplicate", "복제", "post"), ("lock", "Lock", "잠금", "put"),
    ("unlock", "Unlock", "잠금 해제", "delete"), ("sync", "Synchronize", "동기화", "post"),
    ("transfer", "Transfer", "이관", "post"), ("renew", "Renew", "갱신", "post"),
]

SUBRESOURCES = [
    ("note", "notes", "메모"), ("attachment", "attachments", "첨부 파일"), ("comment", "comments", "댓글"),
    ("history", "history", "변경 이력"), ("item", "items", "항목"), ("tag", "tags", "태그"),
    ("approval", "approvals", "결재"), ("contact", "contacts", "연락처"),
]

# Korean summaries of the standard operations (format with the Korean noun)
KO = {
    "list": "{n} 목록 조회", "create": "{n} 등록", "get": "{n} 상세 조회", "update": "{n} 정보 수정",
    "delete": "{n} 삭제", "search": "{n} 조건 검색", "count": "{n} 건수 조회", "export": "{n} 엑셀 다운로드",
    "bulk_delete": "{n} 일괄 삭제", "sub_list": "{n} {s} 목록", "sub_create": "{n} {s} 추가",
    "sub_get": "{n} {s} 상세", "sub_delete": "{n} {s} 삭제", "action": "{n} {a}",
}


def camel(*parts: str) -> str:
    words = [w for p in parts for w in p.split("_") if w]
    return words[0].lower() + "".join(w[:1].upper() + w[1:] for w in words[1:])


def pascal(*parts: str) -> str:
    return "".join(w[:1].upper() + w[1:] for p in parts for w in p.split("_") if w)


def words(s: str) -> str:
    return s.replace("_", " ")


def human(name: str) -> str:
    """fleetVehicle -> 'fleet vehicle'."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).replace("_", " ").lower().strip()


def a(phrase: str) -> str:
    """English indefinite article + phrase."""
    return ("an " if phrase[:1].lower() in "aeio" else "a ") + phrase


def resource_plan(index: int, seed: int) -> dict:
    """Resource number `index`: a (domain, noun) pair, its shape and its operations."""
    n_dom, n_noun = len(DOMAINS), len(NOUNS)
    # walk the domain x noun grid in a fixed pseudo-random order (stride coprime to the size)
    total = n_dom * n_noun
    stride = 7919  # prime, coprime to total
    cell = (seed * 104729 + index * stride) % total
    domain = DOMAINS[cell % n_dom]
    noun = NOUNS[(cell // n_dom) % n_noun]
    rng = random.Random(f"{seed}:{index}")
    # "version" prefix makes paths deep and distinct when the grid wraps around (> total resources)
    generation = index // total
    return {"index": index, "domain": domain, "noun": noun, "rng": rng, "generation": generation}


class SpecBuilder:
    def __init__(self, n_ops: int, seed: int):
        self.n_ops = n_ops
        self.seed = seed
        self.paths: dict[str, dict] = {}
        self.schemas: dict[str, dict] = {}
        self.op_count = 0
        self.ops: list[dict] = []  # for the query generator: operationId, kind, labels
        self.domain_resources: dict[str, list[dict]] = {}

    # -- shared components
    def shared_components(self) -> dict:
        self.schemas.update({
            "Error": {"type": "object", "required": ["code", "message"], "properties": {
                "code": {"type": "string", "description": "Machine-readable error code."},
                "message": {"type": "string", "description": "Human-readable error message."},
                "traceId": {"type": "string", "description": "Request trace identifier."}}},
            "PageInfo": {"type": "object", "properties": {
                "page": {"type": "integer", "description": "Current page number."},
                "size": {"type": "integer", "description": "Page size."},
                "totalElements": {"type": "integer", "description": "Total number of elements."},
                "totalPages": {"type": "integer"}}},
            "AuditInfo": {"type": "object", "properties": {
                "createdAt": {"type": "string", "format": "date-time"},
                "createdBy": {"type": "string", "description": "Operator who created the record."},
                "updatedAt": {"type": "string", "format": "date-time"},
                "updatedBy": {"type": "string"}}},
            "Money": {"type": "object", "required": ["amount", "currency"], "properties": {
                "amount": {"type": "number", "description": "Amount in minor units."},
                "currency": {"type": "string", "description": "ISO 4217 currency code.",
                             "enum": ["KRW", "USD", "EUR", "JPY"]}}},
            "Address": {"type": "object", "properties": {
                "line1": {"type": "string"}, "line2": {"type": "string"}, "city": {"type": "string"},
                "postalCode": {"type": "string"}, "country": {"type": "string"}}},
            "CountResult": {"type": "object", "properties": {
                "count": {"type": "integer", "description": "Number of matching records."}}},
            "ExportJob": {"type": "object", "properties": {
                "exportJobId": {"type": "string", "description": "Export job identifier."},
                "downloadUrl": {"type": "string", "format": "uri"},
                "status": {"type": "string", "enum": ["QUEUED", "RUNNING", "DONE", "FAILED"]}}},
        })
        return {
            "parameters": {
                "Page": {"name": "page", "in": "query", "required": False,
                         "description": "Page number, starting at 1.", "schema": {"type": "integer", "minimum": 1}},
                "Size": {"name": "size", "in": "query", "required": False,
                         "description": "Page size.", "schema": {"type": "integer", "maximum": 200}},
                "Sort": {"name": "sort", "in": "query", "required": False,
                         "description": "Sort expression, e.g. createdAt,desc.", "schema": {"type": "string"}},
                "RequestId": {"name": "X-Request-Id", "in": "header", "required": False,
                              "description": "Idempotency / tracing key.", "schema": {"type": "string"}},
                "OperatorId": {"name": "X-Operator-Id", "in": "header", "required": True,
                               "description": "Operator performing the change, recorded in the audit log.",
                               "schema": {"type": "string"}},
            },
            "responses": {
                "NotFound": {"description": "Not found", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Error"}}}},
                "BadRequest": {"description": "Invalid request", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Error"}}}},
            },
        }

    # -- one resource
    def add_resource(self, plan: dict, budget: int) -> None:
        rng: random.Random = plan["rng"]
        dslug, dlabel, dko = plan["domain"]
        sing, plur, nko = plan["noun"]
        gen = plan["generation"]
        ver = f"v{gen + 1}"
        tag = pascal(dslug) + " " + pascal(plur).replace("_", " ")
        scope = dslug if gen == 0 else f"{dslug}{gen + 1}"
        sname = pascal(scope, sing)  # schema name
        id_field = camel(scope, sing, "id")  # fleetVehicleId: ids are scoped by module
        siblings = self.domain_resources.setdefault(scope, [])
        # parent resource (deep nested paths) for ~35% when the domain has one already
        parents = [s for s in siblings if len(s["path_params"]) < 2]
        parent = parents[rng.randrange(len(parents))] if parents and rng.random() < 0.35 else None
        # foreign keys: up to 3 other resources of the domain
        fks = rng.sample(siblings, k=min(len(siblings), rng.randint(0, 3))) if siblings else []
        statuses = STATUS_SETS[rng.randrange(len(STATUS_SETS))]
        korean = rng.random() < 0.34  # this resource's operations get Korean summaries

        props: dict = {
            id_field: {"type": "string", "readOnly": True, "description": f"{words(sing).capitalize()} identifier."},
            "name": {"type": "string", "description": f"Display name of the {words(sing)}."},
            "status": {"type": "string", "enum": statuses, "description": f"Lifecycle status of the {words(sing)}."},
            "audit": {"$ref": "#/components/schemas/AuditInfo"},
        }
        if rng.random() < 0.5:
            props["total"] = {"$ref": "#/components/schemas/Money"}
        if rng.random() < 0.3:
            props["address"] = {"$ref": "#/components/schemas/Address"}
        if rng.random() < 0.4:
            props["priority"] = {"type": "integer", "minimum": 1, "maximum": 5}
        if parent:
            props[parent["id_field"]] = {"type": "string", "description": f"Owning {words(parent['sing'])}."}
        for fk in fks:
            props[fk["id_field"]] = {"type": "string", "description": f"Related {words(fk['sing'])} identifier."}
        self.schemas[sname] = {"type": "object", "required": [id_field, "name", "status"], "properties": props}
        input_props = {k: v for k, v in props.items() if k not in (id_field, "audit")}
        self.schemas[sname + "Input"] = {"type": "object", "required": ["name"], "properties": input_props}
        self.schemas[sname + "Page"] = {"type": "object", "properties": {
            "items": {"type": "array", "items": {"$ref": f"#/components/schemas/{sname}"}},
            "pageInfo": {"$ref": "#/components/schemas/PageInfo"}}}

        base = f"/api/{ver}/{dslug.replace('_', '-')}"
        if parent:
            coll = f"{parent['coll']}/{{{parent['id_field']}}}/{plur.replace('_', '-')}"
        else:
            coll = f"{base}/{plur.replace('_', '-')}"
        item = f"{coll}/{{{id_field}}}"
        path_params = []
        if parent:
            path_params = list(parent["path_params"]) + [parent["id_field"]]
        siblings.append({"sing": sing, "id_field": id_field, "coll": coll, "path_params": path_params})

        def pparams(names):
            return [{"name": p, "in": "path", "required": True, "schema": {"type": "string"},
                     "description": f"{human(p[:-2] if p.endswith('Id') else p).capitalize()} identifier."}
                    for p in names]

        ref = lambda name: {"$ref": f"#/components/schemas/{name}"}  # noqa: E731
        json_body = lambda schema: {"required": True, "content": {"application/json": {"schema": schema}}}  # noqa: E731
        ok = lambda schema, code="200": {code: {"description": "OK", "content": {"application/json": {"schema": schema}}},  # noqa: E731
                                         "404": {"$ref": "#/components/responses/NotFound"}}
        en_sing, en_plur = words(sing), words(plur)
        dom_words = dlabel
        dn = a(f"{dom_words} {en_sing}")  # "an energy coupon"

        ops = []  # (method, path, kind, opid, en summary, ko summary, params, body, responses)
        qp = [{"$ref": "#/components/parameters/Page"}, {"$ref": "#/components/parameters/Size"}]
        status_q = {"name": "status", "in": "query", "required": False, "description": f"Only {en_plur} in this status.",
                    "schema": {"type": "string", "enum": statuses}}
        ops.append(("get", coll, "list", camel("list", scope, plur), f"List {dom_words} {en_plur}",
                    KO["list"].format(n=nko), pparams(path_params) + qp + [status_q, {"$ref": "#/components/parameters/Sort"}],
                    None, ok(ref(sname + "Page"))))
        ops.append(("post", coll, "create", camel("create", scope, sing), f"Create {dn}",
                    KO["create"].format(n=nko), pparams(path_params) + [{"$ref": "#/components/parameters/RequestId"}],
                    json_body(ref(sname + "Input")), ok(ref(sname), "201")))
        ops.append(("get", item, "get", camel("get", scope, sing), f"Get {dn} by id",
                    KO["get"].format(n=nko), pparams(path_params + [id_field]), None, ok(ref(sname))))
        ops.append(("patch", item, "update", camel("update", scope, sing), f"Update {dn}",
                    KO["update"].format(n=nko), pparams(path_params + [id_field]) + [{"$ref": "#/components/parameters/OperatorId"}],
                    json_body(ref(sname + "Input")), ok(ref(sname))))
        ops.append(("delete", item, "delete", camel("delete", scope, sing), f"Delete {dn}",
                    KO["delete"].format(n=nko), pparams(path_params + [id_field]) + [{"$ref": "#/components/parameters/OperatorId"}],
                    None, {"204": {"description": "Deleted"}, "404": {"$ref": "#/components/responses/NotFound"}}))
        ops.append(("post", f"{coll}/search", "search", camel("search", scope, plur, "by", "condition"),
                    f"Search {dom_words} {en_plur} by condition", KO["search"].format(n=nko), pparams(path_params) + qp,
                    json_body({"type": "object", "properties": {
                        "keyword": {"type": "string", "description": "Free-text keyword."},
                        "status": {"type": "array", "items": {"type": "string", "enum": statuses}},
                        "createdFrom": {"type": "string", "format": "date"},
                        "createdTo": {"type": "string", "format": "date"}}}),
                    ok(ref(sname + "Page"))))
        if rng.random() < 0.6:
            ops.append(("get", f"{coll}/count", "count", camel("count", scope, plur),
                        f"Count {dom_words} {en_plur} by status", KO["count"].format(n=nko),
                        pparams(path_params) + [status_q], None, ok(ref("CountResult"))))
        if rng.random() < 0.4:
            ops.append(("post", f"{coll}/export", "export", camel("export", scope, plur),
                        f"Export {dom_words} {en_plur} to a spreadsheet", KO["export"].format(n=nko),
                        pparams(path_params), json_body({"type": "object", "properties": {
                            "format": {"type": "string", "enum": ["CSV", "XLSX"]},
                            "status": {"type": "string", "enum": statuses}}}),
                        ok(ref("ExportJob"), "202")))
        if rng.random() < 0.25:
            ops.append(("delete", f"{coll}/bulk", "bulk_delete", camel("bulk", "delete", scope, plur),
                        f"Bulk delete {dom_words} {en_plur}", KO["bulk_delete"].format(n=nko),
                        pparams(path_params) + [{"$ref": "#/components/parameters/OperatorId"}],
                        json_body({"type": "object", "required": ["ids"], "properties": {
                            "ids": {"type": "array", "items": {"type": "string"},
                                    "description": f"{en_sing.capitalize()} identifiers to delete."}}}),
                        {"204": {"description": "Deleted"}}))
        for verb, en_verb, ko_verb, method in rng.sample(ACTIONS, k=rng.randint(1, 4)):
            ops.append((method, f"{item}/{verb}", "action", camel(verb, scope, sing),
                        f"{en_verb} {dn}", KO["action"].format(n=nko, a=ko_verb),
                        pparams(path_params + [id_field]) + [{"$ref": "#/components/parameters/OperatorId"}],
                        json_body({"type": "object", "properties": {
                            "reason": {"type": "string", "description": f"Why the {en_sing} is {verb}d."},
                            "comment": {"type": "string"}}}) if method != "delete" else None,
                        ok(ref(sname))))
        for s_sing, s_plur, s_ko in rng.sample(SUBRESOURCES, k=rng.choice([0, 0, 1, 1, 2])):
            sub_coll = f"{item}/{s_plur}"
            sub_id = camel(s_sing, "id")
            sub_schema = {"type": "object", "properties": {
                sub_id: {"type": "string", "readOnly": True}, id_field: {"type": "string"},
                "body": {"type": "string"}, "audit": {"$ref": "#/components/schemas/AuditInfo"}}}
            ops.append(("get", sub_coll, "sub_list", camel("list", scope, sing, s_plur),
                        f"List {s_plur} of {dn}", KO["sub_list"].format(n=nko, s=s_ko),
                        pparams(path_params + [id_field]) + qp, None,
                        ok({"type": "object", "properties": {"items": {"type": "array", "items": sub_schema}}})))
            ops.append(("post", sub_coll, "sub_create", camel("add", scope, sing, s_sing),
                        f"Add a {s_sing} to {dn}", KO["sub_create"].format(n=nko, s=s_ko),
                        pparams(path_params + [id_field]), json_body({"type": "object", "properties": {
                            "body": {"type": "string", "description": f"Text of the {s_sing}."}}}),
                        ok(sub_schema, "201")))
            if rng.random() < 0.5:
                ops.append(("delete", f"{sub_coll}/{{{sub_id}}}", "sub_delete", camel("delete", scope, sing, s_sing),
                            f"Remove a {s_sing} from {dn}", KO["sub_delete"].format(n=nko, s=s_ko),
                            pparams(path_params + [id_field, sub_id]), None, {"204": {"description": "Deleted"}}))

        for method, path, kind, opid, en, ko, params, body, responses in ops[:budget]:
            op = {"operationId": opid, "tags": [tag], "summary": ko if korean else en,
                  "description": f"{en}. Part of the {dom_words} module ({dko}).",
                  "parameters": params, "responses": responses}
            if body is not None:
                op["requestBody"] = body
            self.paths.setdefault(path, {})[method] = op
            self.op_count += 1
            self.ops.append({"operationId": opid, "kind": kind, "en": en, "ko": KO.get(kind, "").format(
                n=nko, s="", a="").strip() if kind not in ("action", "sub_list", "sub_create", "sub_delete") else ko,
                "korean_summary": korean, "domain": dlabel, "domain_ko": dko, "noun": en_sing, "plural": en_plur,
                "noun_ko": nko})

    def build(self) -> dict:
        comps = self.shared_components()
        index = 0
        while self.op_count < self.n_ops:
            self.add_resource(resource_plan(index, self.seed), self.n_ops - self.op_count)
            index += 1
        comps["schemas"] = self.schemas
        return {
            "openapi": "3.0.3",
            "info": {"title": f"Synthetic Enterprise Platform API ({self.n_ops} operations)",
                     "version": "1.0.0",
                     "description": "Generated by toolscope scripts/gen-synthetic.py for benchmarks."},
            "servers": [{"url": "https://platform.example.com"}],
            "paths": self.paths,
            "components": comps,
        }


def make_queries(ops: list[dict], count: int, seed: int) -> list[str]:
    """English and Korean queries phrased like a user, spread evenly over the operations."""
    rng = random.Random(f"queries:{seed}:{len(ops)}")
    out: list[str] = []
    step = max(len(ops) // count, 1)
    templates_en = {
        "list": ["list {d} {p}", "show all {p} in {d}", "{p} list"],
        "create": ["create a new {d} {n}", "register {n}", "add {n} in {d}"],
        "get": ["get {n} details", "show {d} {n} by id", "look up a {n}"],
        "update": ["update {n}", "change {d} {n} information", "edit {n} status"],
        "delete": ["delete {n}", "remove a {d} {n}"],
        "search": ["search {p} by condition", "find {d} {p} with keyword", "filter {p} by status and date"],
        "count": ["how many {p} are there", "count {d} {p} by status"],
        "export": ["export {p} to excel", "download {d} {p} spreadsheet"],
        "bulk_delete": ["bulk delete {p}", "delete several {d} {p} at once"],
    }
    for i in range(count):
        op = ops[min(i * step + rng.randrange(step), len(ops) - 1)]
        kind = op["kind"]
        use_ko = (i % 3 == 2) or (op["korean_summary"] and i % 3 == 1)
        if use_ko and op["ko"]:
            q = op["ko"]
            if rng.random() < 0.3:
                q = f"{op['domain_ko']} {q}"
        elif kind in templates_en:
            q = rng.choice(templates_en[kind]).format(d=op["domain"], n=op["noun"], p=op["plural"])
        else:
            q = op["en"].lower().replace(" a ", " ").replace(" an ", " ")
        out.append(" ".join(q.split()))
    # a few that hit nothing or only fragments
    out += ["quarterly synergy roadmap", "환율 변동 알림 설정", "xyzzy"][: max(0, min(3, count // 30))]
    return out


# --- artifact building with the reference ------------------------------------------------
# Each tile is built in a child process (the reference needs ~3 GB per 10k operations and
# Python keeps that memory), which writes the artifact in pieces: head.json (every top-level
# key except graph.nodes/graph.edges/tools, in the library's key order) and nodes/edges/tools
# as JSON Lines. The parent then streams the pieces into one document that looks exactly like
# the library CLI's json.dumps(indent=2, ensure_ascii=False, default=str).
CHILD = r"""
import json, sys, time
from graph_tool_call.graphify import build_openapi_collection_artifact
spec, outdir = sys.argv[1], sys.argv[2]
t = time.perf_counter()
art = build_openapi_collection_artifact(spec)
build_s = time.perf_counter() - t
graph, tools = art["graph"], art["tools"]
def lines(name, items):  # piece by piece: one json.dumps of a 50k artifact needs > 20 GB
    with open(f"{outdir}/{name}.jsonl", "w", encoding="utf-8") as fh:
        for it in items:
            fh.write(json.dumps(it, ensure_ascii=False, default=str) + "\n")
lines("nodes", graph.get("nodes") or [])
lines("edges", graph.get("edges") or [])
lines("tools", tools.items())
head = dict(art)
head["graph"] = {k: (None if k in ("nodes", "edges") else v) for k, v in graph.items()}
head["tools"] = None
with open(f"{outdir}/head.json", "w", encoding="utf-8") as fh:
    json.dump({"head": head, "build_s": build_s, "tools": len(tools),
               "edges": len(graph.get("edges") or [])}, fh, ensure_ascii=False, default=str)
"""


def build_tile(spec_path: str, outdir: str) -> dict:
    import subprocess
    os.makedirs(outdir, exist_ok=True)
    # run next to the spec with a relative name: the artifact records it as source_url
    subprocess.run([sys.executable, "-c", CHILD, os.path.basename(spec_path), os.path.abspath(outdir)],
                   check=True, cwd=os.path.dirname(os.path.abspath(spec_path)))
    with open(os.path.join(outdir, "head.json"), encoding="utf-8") as fh:
        return json.load(fh)


def split_spec(spec: dict, chunk: int) -> list[dict]:
    """Cut the spec into sub-specs of about `chunk` operations at module boundaries (the path
    segment after /api/vN/; every foreign key and parent of a resource stays in its module),
    each with all the shared components."""
    groups: dict[str, list[str]] = {}
    for path in spec["paths"]:
        key = "/".join(path.split("/")[:4])  # /api/v1/<module>
        groups.setdefault(key, []).append(path)
    parts: list[list[str]] = []
    cur: list[str] = []
    cur_ops = 0
    for key in groups:
        n = sum(len(spec["paths"][p]) for p in groups[key])
        if cur and cur_ops + n > chunk:
            parts.append(cur)
            cur, cur_ops = [], 0
        cur.extend(groups[key])
        cur_ops += n
    if cur:
        parts.append(cur)
    subs = []
    for i, paths in enumerate(parts):
        sub = dict(spec)
        sub["info"] = dict(spec["info"], title=f"{spec['info']['title']} - part {i + 1}/{len(parts)}")
        sub["paths"] = {p: spec["paths"][p] for p in paths}
        subs.append(sub)
    return subs


def write_merged(tiles: list[tuple[str, dict]], out_path: str, note: dict | None) -> tuple[int, int, int]:
    """Stream the tiles' pieces into one artifact (indent=2 like the CLI); gzip if *.gz."""
    head = tiles[0][1]["head"]
    n_tools = sum(t[1]["tools"] for t in tiles)
    n_edges = sum(t[1]["edges"] for t in tiles)
    if note is not None:
        meta = dict(head.get("metadata") or {})
        meta["tool_count"] = n_tools
        meta["toolscope_bench"] = dict(note, tools=n_tools, edges=n_edges)
        head = dict(head, metadata=meta)

    def dumps(value, level):
        return json.dumps(value, indent=2, ensure_ascii=False, default=str).replace("\n", "\n" + "  " * level)

    tmp = out_path + ".tmp"
    raw = open(tmp, "wb")
    fh = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) \
        if out_path.endswith(".gz") else raw
    size = 0

    def w(text: str):
        nonlocal size
        data = text.encode("utf-8")
        size += len(data)
        fh.write(data)

    def stream_list(name, level):
        first = True
        for d, _ in tiles:
            with open(os.path.join(d, name + ".jsonl"), encoding="utf-8") as src:
                for line in src:
                    w(("\n" if first else ",\n") + "  " * level + dumps(json.loads(line), level))
                    first = False
        return first

    w("{")
    for i, (key, value) in enumerate(head.items()):
        w(("\n" if i == 0 else ",\n") + "  " + json.dumps(key, ensure_ascii=False) + ": ")
        if key == "graph":
            w("{")
            for j, (gk, gv) in enumerate(value.items()):
                w(("\n" if j == 0 else ",\n") + "    " + json.dumps(gk, ensure_ascii=False) + ": ")
                if gk in ("nodes", "edges"):
                    w("[")
                    empty = stream_list(gk, 3)
                    w("]" if empty else "\n    ]")
                else:
                    w(dumps(gv, 2))
            w("\n  }" if value else "}")
        elif key == "tools":
            w("{")
            first = True
            for d, _ in tiles:
                with open(os.path.join(d, "tools.jsonl"), encoding="utf-8") as src:
                    for line in src:
                        name, tool = json.loads(line)
                        w(("\n" if first else ",\n") + "    " + json.dumps(name, ensure_ascii=False)
                          + ": " + dumps(tool, 2))
                        first = False
            w("}" if first else "\n  }")
        else:
            w(dumps(value, 1))
    w("\n}")
    if fh is not raw:
        fh.close()
    raw.close()
    os.replace(tmp, out_path)
    return n_tools, n_edges, size


def build_artifact(spec: dict, n_ops: int, out_path: str, chunk: int, seed: int) -> None:
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp(prefix="gen-synthetic-", dir=os.path.dirname(os.path.abspath(out_path)))
    try:
        subs = split_spec(spec, chunk) if chunk and n_ops > chunk else [spec]
        tiles = []
        t_all = time.perf_counter()
        for i, sub in enumerate(subs):
            stem = f"synthetic-{n_ops}" + (f".part{i + 1}" if len(subs) > 1 else "")
            p = os.path.join(tmp, f"{stem}.openapi.json")
            with open(p, "w", encoding="utf-8") as fh:
                json.dump(sub, fh, ensure_ascii=False)
            ops = sum(len(v) for v in sub["paths"].values())
            t = time.perf_counter()
            info = build_tile(p, os.path.join(tmp, f"part{i}"))
            print(f"gen-synthetic: tile {i + 1}/{len(subs)}: {ops} operations, {info['edges']} edges; "
                  f"reference build {info['build_s']:.1f} s ({time.perf_counter() - t:.1f} s with I/O)",
                  file=sys.stderr, flush=True)
            tiles.append((os.path.join(tmp, f"part{i}"), info))
        build_s = time.perf_counter() - t_all
        note = None
        if len(tiles) > 1:
            note = {"generator": f"scripts/gen-synthetic.py {n_ops} --seed {seed} --chunk {chunk}",
                    "method": "tiled: separately built reference artifacts of module groups of one "
                              "generated spec, concatenated (no edges between tiles)",
                    "tiles": len(tiles), "reference_build_s": round(sum(t[1]["build_s"] for t in tiles), 1)}
        n_tools, n_edges, size = write_merged(tiles, out_path, note)
        print(f"gen-synthetic: artifact {n_tools} tools, {n_edges} edges, {size / 1e6:.0f} MB JSON; "
              f"{len(tiles)} reference build(s) took {build_s:.1f} s -> {out_path}", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int, help="number of operations")
    ap.add_argument("-o", "--output", help="write the OpenAPI spec (JSON) here")
    ap.add_argument("--artifact", help="build a collection artifact (.json or .json.gz) with the reference")
    ap.add_argument("--chunk", type=int, default=0,
                    help="build in tiles of about this many operations (0 = one build of the whole spec)")
    ap.add_argument("--queries", help="write a query file here")
    ap.add_argument("--query-count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not args.output and not args.artifact and not args.queries:
        ap.error("nothing to do: give -o, --artifact and/or --queries")

    builder = SpecBuilder(args.n, args.seed)
    spec = builder.build()
    assert builder.op_count == args.n, builder.op_count
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            json.dump(spec, fh, ensure_ascii=False, indent=1)
        print(f"gen-synthetic: {args.n} operations, {len(spec['paths'])} paths, "
              f"{len(spec['components']['schemas'])} schemas -> {args.output}", file=sys.stderr)
    if args.queries:
        qs = make_queries(builder.ops, args.query_count, args.seed)
        with open(args.queries, "w", encoding="utf-8") as fh:
            fh.write(f"# {len(qs)} queries for scripts/gen-synthetic.py {args.n} --seed {args.seed}\n")
            fh.write("\n".join(qs) + "\n")
        print(f"gen-synthetic: {len(qs)} queries -> {args.queries}", file=sys.stderr)
    if args.artifact:
        build_artifact(spec, args.n, args.artifact, args.chunk, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
