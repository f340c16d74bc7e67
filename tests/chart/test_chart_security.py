"""Every pod and container runs locked down: non-root 10001, read-only root filesystem, no
privilege escalation, no capabilities, the runtime's seccomp profile, no API token."""

from __future__ import annotations

from .support import COMPONENTS, Rendered

POD = {
    "runAsNonRoot": True,
    "runAsUser": 10001,
    "runAsGroup": 10001,
    "seccompProfile": {"type": "RuntimeDefault"},
}
CONTAINER = {
    "runAsNonRoot": True,
    "runAsUser": 10001,
    "runAsGroup": 10001,
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}


def _name(owner: dict) -> str:
    return f"{owner['kind']}/{owner['metadata']['name']}"


def test_every_pod_runs_as_the_unprivileged_user(any_render: Rendered) -> None:
    specs = list(any_render.pod_specs())

    assert specs
    for owner, spec in specs:
        context = spec["securityContext"]
        assert {key: context.get(key) for key in POD} == POD, _name(owner)
        assert spec["automountServiceAccountToken"] is False, _name(owner)
        assert spec["enableServiceLinks"] is False, f"{_name(owner)}: Service links could shadow settings"
        assert not spec.get("hostNetwork") and not spec.get("hostPID") and not spec.get("hostIPC")


def test_every_container_is_locked_down(any_render: Rendered) -> None:
    for owner, container in any_render.containers():
        context = container["securityContext"]
        assert {key: context.get(key) for key in CONTAINER} == CONTAINER, f"{_name(owner)} {container['name']}"
        assert "privileged" not in context or context["privileged"] is False
        assert not context["capabilities"].get("add")


# What the evaluation stores write besides /tmp: their data, and Postgres' socket folder.
STORE_MOUNTS = {"redis": {"/data": "data"},
                "postgres": {"/var/lib/postgresql/data": "data", "/var/run/postgresql": "run"}}


def test_every_container_writes_only_to_its_tmp_volume(any_render: Rendered) -> None:
    """Besides /tmp, a container mounts only its gRPC credentials (grpcAuth), read-only; an
    evaluation store its data too."""
    for owner, spec in any_render.pod_specs():
        volumes = {volume["name"]: volume for volume in spec["volumes"]}
        assert "emptyDir" in volumes["tmp"], _name(owner)
        for container in spec["containers"]:
            where = f"{_name(owner)} {container['name']}"
            mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
            assert mounts.pop("/tmp") == "tmp", where
            if owner["kind"] == "StatefulSet":
                store = STORE_MOUNTS[container["name"]]
                assert {path: mounts.pop(path) for path in store} == store, where
            assert set(mounts.values()) <= {"grpc-auth"}, where
            for mount in container["volumeMounts"]:
                if mount["name"] == "grpc-auth":
                    assert mount["readOnly"] is True, where
                    assert set(volumes["grpc-auth"]) == {"name", "projected"}, where


def test_every_container_has_resource_requests_and_a_memory_limit(any_render: Rendered) -> None:
    for owner, container in any_render.containers():
        resources = container["resources"]
        assert {"cpu", "memory"} <= set(resources["requests"]), _name(owner)
        assert "memory" in resources["limits"], _name(owner)


def test_service_accounts_carry_no_api_token(any_render: Rendered) -> None:
    accounts = any_render.of_kind("ServiceAccount")

    assert len(accounts) == len(COMPONENTS)
    assert all(account["automountServiceAccountToken"] is False for account in accounts)
