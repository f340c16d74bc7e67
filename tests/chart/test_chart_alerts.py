"""The chart's alerts (metrics.prometheusRule): a PrometheusRule that Prometheus' own promtool
accepts, each alert linked to its runbook section in docs/operations.md, and promtool's unit
tests of a few of them: the release's series in, the alert out, other releases' series ignored."""

from __future__ import annotations

import copy
import pathlib
import re
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from .support import CHART, REPO, Rendered, validate

PROMTOOL = shutil.which("promtool")  # Debian's `prometheus` package (.ci/run installs it)
RULED = {"metrics": {"prometheusRule": {"enabled": True, "labels": {"release": "kube-prometheus-stack"}}}}
OPERATIONS = REPO / "docs" / "operations.md"
DEFAULTS = yaml.safe_load((CHART / "values.yaml").read_text())["metrics"]["prometheusRule"]


def _rule(rendered: Rendered) -> dict[str, Any]:
    (rule,) = rendered.of_kind("PrometheusRule")
    return rule


def _alerts(rendered: Rendered) -> dict[str, dict[str, Any]]:
    (group,) = _rule(rendered)["spec"]["groups"]
    return {rule["alert"]: rule for rule in group["rules"]}


@pytest.fixture(scope="module")
def ruled(render: Callable[..., Rendered]) -> Rendered:
    return render(RULED)


def _rules_file(rendered: Rendered, folder: pathlib.Path) -> pathlib.Path:
    """The rule's spec as a Prometheus rules file (what the operator hands Prometheus)."""
    path = folder / "rules.yaml"
    path.write_text(yaml.safe_dump({"groups": _rule(rendered)["spec"]["groups"]}, sort_keys=False))
    return path


def _promtool(*args: str | pathlib.Path, cwd: pathlib.Path | None = None) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL, "promtool is missing: apt-get install prometheus"
    return subprocess.run([PROMTOOL, *map(str, args)], capture_output=True, text=True, timeout=60, cwd=cwd)


def test_the_rule_is_opt_in_and_valid(default_render: Rendered, ruled: Rendered) -> None:
    assert default_render.of_kind("PrometheusRule") == []
    rule = _rule(ruled)
    assert rule["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    validate(rule)


def test_every_alert_of_the_values_is_rendered(ruled: Rendered) -> None:
    assert set(_alerts(ruled)) == set(DEFAULTS["alerts"])


def test_promtool_accepts_the_rules(ruled: Rendered, tmp_path: pathlib.Path) -> None:
    result = _promtool("check", "rules", _rules_file(ruled, tmp_path))

    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(DEFAULTS['alerts'])} rules found" in result.stdout


def test_promtool_would_catch_a_broken_expression(ruled: Rendered, tmp_path: pathlib.Path) -> None:
    broken = copy.deepcopy(ruled)
    (group,) = _rule(broken)["spec"]["groups"]
    group["rules"][0]["expr"] = group["rules"][0]["expr"].replace("[5m]", "[5 minutes]", 1)

    result = _promtool("check", "rules", _rules_file(broken, tmp_path))

    assert result.returncode != 0


def _runbook_sections() -> set[str]:
    """The anchors of the ### sections under "## Alerts", as GitHub makes them."""
    text = OPERATIONS.read_text()
    alerts = text[text.index("\n## Alerts\n"):]
    alerts = alerts[: alerts.find("\n## ", 1)] if "\n## " in alerts[1:] else alerts
    return {re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")
            for title in re.findall(r"^### (.+)$", alerts, re.MULTILINE)}


def test_every_alert_links_its_runbook_section_and_every_section_an_alert(ruled: Rendered) -> None:
    sections = _runbook_sections()
    alerts = _alerts(ruled)

    for name, alert in alerts.items():
        annotations = alert["annotations"]
        assert set(annotations) == {"summary", "description", "runbook_url"}, name
        base, anchor = annotations["runbook_url"].split("#")
        assert base == DEFAULTS["runbookBaseUrl"]
        assert anchor in sections, f"{name}: no section #{anchor} under docs/operations.md's Alerts"
    assert sections == {name.lower() for name in alerts}


def test_the_runbook_url_points_at_the_projects_operations_page() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())

    assert DEFAULTS["runbookBaseUrl"] == f"{chart['home']}/blob/main/docs/operations.md"
    assert chart["home"] in chart["sources"]


def test_thresholds_durations_severities_and_labels_follow_the_values(render: Callable[..., Rendered]) -> None:
    values = copy.deepcopy(RULED)
    values["metrics"]["prometheusRule"].update({
        "alertLabels": {"team": "games", "severity": "ignored"},
        "runbookBaseUrl": "https://wiki.example.com/tavolo/runbook",
        "alerts": {"TavoloSlowMoves": {"threshold": 0.8, "for": "20m", "severity": "critical"},
                   "TavoloRateLimited": {"enabled": False}},
    })
    alerts = _alerts(render(values))

    assert "TavoloRateLimited" not in alerts
    slow = alerts["TavoloSlowMoves"]
    assert slow["expr"].endswith("> 0.8")
    assert (slow["for"], slow["labels"]) == ("20m", {"severity": "critical", "team": "games"})
    assert slow["annotations"]["runbook_url"] == "https://wiki.example.com/tavolo/runbook#tavoloslowmoves"
    assert alerts["TavoloHttpErrors"]["labels"] == {"severity": "critical", "team": "games"}


def test_the_alerts_read_the_new_metric_names(ruled: Rendered) -> None:
    """The OpenTelemetry names in seconds (rpc.client.call.duration) and their labels, as
    docs/operations.md lists them; not the old milliseconds and status codes."""
    exprs = " ".join(alert["expr"] for alert in _alerts(ruled).values())
    metrics = OPERATIONS.read_text()

    for name in ("rpc_client_call_duration_seconds", "rpc_response_status_code", "tavolo_rate_limit_kind",
                 "http_response_status_code", "tavolo_deadline_fired_by"):
        assert name in exprs and f"`{name}" in metrics, name
    assert "_milliseconds" not in exprs and "rpc_grpc_status_code" not in exprs


# -- promtool's unit tests: series in, alerts out ------------------------------------------------

OURS = 'namespace="games",pod="rel-tavolo-{component}-5d9c7b6f4-x2x4z"'
ACT = "tavolo.game.v1.GameService/Act"
RECORD = "tavolo.stats.v1.StatsService/RecordMatch"
JOIN = "tavolo.lobby.v1.LobbyService/JoinGame"
# Another release in the namespace, and this release's name in another namespace: never counted.
OTHERS = ['namespace="games",pod="other-tavolo-{component}-7f8d9c-abcde"',
          'namespace="elsewhere",pod="rel-tavolo-{component}-7f8d9c-abcde"']


def _series(metric: str, labels: str, values: str, component: str) -> list[dict[str, str]]:
    return [{"series": f"{metric}{{{where.format(component=component)}{labels}}}", "values": values}
            for where in [OURS]]


def _decoys(metric: str, labels: str, values: str, component: str) -> list[dict[str, str]]:
    return [{"series": f"{metric}{{{where.format(component=component)}{labels}}}", "values": values}
            for where in OTHERS]


def _expected(alert: dict[str, Any], **values: str) -> dict[str, Any]:
    """The alert as promtool reports it: its labels, and its annotations with $value filled in."""
    annotations = dict(alert["annotations"])
    for template, value in values.items():
        annotations = {key: text.replace(f"{{{{ {template} }}}}", value) for key, text in annotations.items()}
    return {"exp_labels": alert["labels"], "exp_annotations": annotations}


def test_promtool_unit_tests_fire_the_alerts_on_the_releases_series(ruled: Rendered, tmp_path: pathlib.Path) -> None:
    alerts = _alerts(ruled)
    _rules_file(ruled, tmp_path)
    buckets = ("0.1", "0.25", "0.5", "1", "+Inf")
    # Every move takes between 0.5 and 1 s: the p99 interpolates to 0.995 s.
    slow = [item for le in buckets for item in _series(
        "rpc_client_call_duration_seconds_bucket", f',rpc_method="{ACT}",le="{le}"',
        "0+60x60" if le in ("1", "+Inf") else "0x60", "gateway")]
    fast = [item for le in buckets for item in _decoys(
        "rpc_client_call_duration_seconds_bucket", f',rpc_method="{ACT}",le="{le}"', "0+6000x60", "gateway")]
    tests = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": [
                # 10 of every 100 requests fail: 10 %; the other releases' fail all of theirs.
                *_series("http_server_request_duration_seconds_count", ',http_response_status_code="500"', "0+10x60", "gateway"),
                *_series("http_server_request_duration_seconds_count", ',http_response_status_code="200"', "0+90x60", "gateway"),
                *_decoys("http_server_request_duration_seconds_count", ',http_response_status_code="500"', "0+1000x60", "gateway"),
                *slow, *fast,
                # The game's calls to stats: 10 of every 50 UNAVAILABLE, 20 %. The gateway's to
                # the lobby: many NOT_FOUND (a caller's mistake), which count for nothing.
                *_series("rpc_client_call_duration_seconds_count", f',rpc_method="{RECORD}",rpc_response_status_code="UNAVAILABLE"', "0+10x60", "game"),
                *_series("rpc_client_call_duration_seconds_count", f',rpc_method="{RECORD}",rpc_response_status_code="OK"', "0+40x60", "game"),
                *_series("rpc_client_call_duration_seconds_count", f',rpc_method="{JOIN}",rpc_response_status_code="NOT_FOUND"', "0+50x60", "gateway"),
                *_series("rpc_client_call_duration_seconds_count", f',rpc_method="{JOIN}",rpc_response_status_code="OK"', "0+5x60", "gateway"),
                # 3 matches wait to be recorded; the others' 7 and 9 are not ours.
                *_series("tavolo_matches_unrecorded", "", "3x60", "game"),
                {"series": f"tavolo_matches_unrecorded{{{OTHERS[0].format(component='game')}}}", "values": "7x60"},
                {"series": f"tavolo_matches_unrecorded{{{OTHERS[1].format(component='game')}}}", "values": "9x60"},
            ],
            "alert_rule_test": [
                # Not before the condition has held for its `for`.
                {"eval_time": "8m", "alertname": "TavoloHttpErrors", "exp_alerts": []},
                {"eval_time": "20m", "alertname": "TavoloHttpErrors", "exp_alerts": [
                    _expected(alerts["TavoloHttpErrors"], **{"$value | humanizePercentage": "10%"})]},
                {"eval_time": "8m", "alertname": "TavoloSlowMoves", "exp_alerts": []},
                {"eval_time": "20m", "alertname": "TavoloSlowMoves", "exp_alerts": [
                    _expected(alerts["TavoloSlowMoves"], **{"$value | humanizeDuration": "995ms"})]},
                {"eval_time": "25m", "alertname": "TavoloMatchesUnrecorded", "exp_alerts": []},
                {"eval_time": "35m", "alertname": "TavoloMatchesUnrecorded", "exp_alerts": [
                    _expected(alerts["TavoloMatchesUnrecorded"], **{"$value": "3"})]},
                {"eval_time": "20m", "alertname": "TavoloGrpcErrors", "exp_alerts": [
                    _expected(alerts["TavoloGrpcErrors"], **{"$value | humanizePercentage": "20%",
                                                             "$labels.rpc_service": "tavolo.stats.v1.StatsService"})
                    | {"exp_labels": {**alerts["TavoloGrpcErrors"]["labels"], "rpc_service": "tavolo.stats.v1.StatsService"}}]},
                # Nothing else fires on these series.
                {"eval_time": "35m", "alertname": "TavoloStoreErrors", "exp_alerts": []},
            ],
        }],
    }
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(tests, sort_keys=False))

    result = _promtool("test", "rules", "tests.yaml", cwd=tmp_path)

    assert result.returncode == 0, result.stdout + result.stderr


def test_promtool_unit_tests_can_fail(ruled: Rendered, tmp_path: pathlib.Path) -> None:
    """The same kind of test, expecting an alert the series do not raise, fails."""
    _rules_file(ruled, tmp_path)
    tests = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": [{
        "interval": "1m",
        "input_series": _series("tavolo_matches_unrecorded", "", "0x60", "game"),
        "alert_rule_test": [{"eval_time": "40m", "alertname": "TavoloMatchesUnrecorded", "exp_alerts": [
            _expected(_alerts(ruled)["TavoloMatchesUnrecorded"], **{"$value": "0"})]}],
    }]}
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(tests, sort_keys=False))

    assert _promtool("test", "rules", "tests.yaml", cwd=tmp_path).returncode != 0


def test_promtool_unit_tests_fire_the_runtime_and_absence_alerts(ruled: Rendered, tmp_path: pathlib.Path) -> None:
    alerts = _alerts(ruled)
    _rules_file(ruled, tmp_path)
    game_pod = OURS.format(component="game").split('pod="')[1].rstrip('"')
    lag = [item for le in ("0.1", "0.25", "0.5", "+Inf") for item in _series(
        "tavolo_event_loop_lag_seconds_bucket", f',le="{le}"', "0+120x60" if le in ("0.5", "+Inf") else "0x60", "game")]

    def fired(name: str, labels: dict[str, str], **values: str) -> dict[str, Any]:
        expected = _expected(alerts[name], **values)
        return expected | {"exp_labels": {**alerts[name]["labels"], **labels}}

    tests = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": [
        {   # Only another release is scraped: ours is absent.
            "interval": "1m",
            "input_series": _decoys("up", "", "1x30", "gateway"),
            "alert_rule_test": [
                {"eval_time": "3m", "alertname": "TavoloTargetsAbsent", "exp_alerts": []},
                {"eval_time": "10m", "alertname": "TavoloTargetsAbsent", "exp_alerts": [
                    fired("TavoloTargetsAbsent", {})]},
            ],
        },
        {   # The game pod: its loop late by 0.25 to 0.5 s, a tenth of its time in the collector,
            # its pool's ten connections all lent out; and it is up.
            "interval": "1m",
            "input_series": [
                *_series("up", "", "1x60", "game"),
                *lag,
                *_series("tavolo_gc_pause_duration_seconds_sum", ',cpython_gc_generation="2"', "0+6x60", "game"),
                *_series("db_client_connection_count", ',db_client_connection_pool_name="game_log",db_client_connection_state="used"', "10x60", "game"),
                *_series("db_client_connection_count", ',db_client_connection_pool_name="game_log",db_client_connection_state="idle"', "0x60", "game"),
                *_decoys("db_client_connection_count", ',db_client_connection_pool_name="game_log",db_client_connection_state="used"', "10x60", "game"),
            ],
            "alert_rule_test": [
                {"eval_time": "30m", "alertname": "TavoloTargetsAbsent", "exp_alerts": []},
                {"eval_time": "30m", "alertname": "TavoloEventLoopLag", "exp_alerts": [
                    fired("TavoloEventLoopLag", {"pod": game_pod},
                          **{"$value | humanizeDuration": "497.5ms", "$labels.pod": game_pod})]},
                {"eval_time": "30m", "alertname": "TavoloGcPauses", "exp_alerts": [
                    fired("TavoloGcPauses", {"pod": game_pod},
                          **{"$value | humanizePercentage": "10%", "$labels.pod": game_pod})]},
                {"eval_time": "30m", "alertname": "TavoloPoolSaturated", "exp_alerts": [
                    fired("TavoloPoolSaturated", {"pod": game_pod, "db_client_connection_pool_name": "game_log"},
                          **{"$value | humanizePercentage": "100%", "$labels.pod": game_pod,
                             "$labels.db_client_connection_pool_name": "game_log"})]},
            ],
        },
    ]}
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(tests, sort_keys=False))

    result = _promtool("test", "rules", "tests.yaml", cwd=tmp_path)

    assert result.returncode == 0, result.stdout + result.stderr
