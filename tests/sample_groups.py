"""What a reader expects of the bundled sample, written down once for every test that needs it.

Paper ids are stable ('p' + 12 hex digits of the abstract's SHA-256), so these hold for any
build of the sample. `GROUPS` are papers a reader keeps together (a topic that splits them is
wrong, whatever the seed); `NAMED` says, per name a user types with `--topics`, which papers
must join it and which may.

The three federated LoRA papers (FedASK, FedLEASE, RoLoRA) are both federated learning and
LoRA: each solves a problem that only exists when LoRA adapters are trained across clients
(private aggregation, client heterogeneity, inexact averaging of the two factors). A reader
filing them under either name is right, so either is accepted; the matcher puts each where its
abstract's emphasis lies. FOCUS (no LoRA) must be federated learning, GoRA (no federation)
LoRA / PEFT.
"""

from __future__ import annotations

from dataclasses import dataclass

PAPERS = {
    "FOCUS": "p89c10860eeb8",
    "FedASK": "pea24ce769ac8",
    "FedLEASE": "p1f34b2c7ccf7",
    "RoLoRA": "pe2f9fb61cb42",
    "GoRA": "p8d87f77691d9",
    "RestoreLCC": "p64acbc0fa2e9",  # recovers pruned LLMs instead of fine-tuning them with PEFT
    "low-rank training": "pd53d19563266",  # optimisers for low-rank pre-training and fine-tuning
    "QRPO": "pa08404ce01da",
    "SE-POPO": "pb05578dd266a",
    "POCCO": "p5aefd3d45180",  # preference optimisation, but for combinatorial problems
    "AnDPro": "pe492db093a25",
    "NSNQuant": "p463d7cbfc1ca",
    "low-rank RNNs": "p5c38881967c8",
    "fly olfaction": "pfbc7437e1b71",
    "NCE": "pd2d513589612",
    "in-context approximation": "pe52e2f30f983",
    "stochastic block model": "pcf3b67500f92",
    "low-rank gradients": "p72da2c74a8c5",
    "bandit inference": "p68b6b12960d9",
    "SVUCRL": "pb2bb8e91c844",
    "federated RL regret": "p431967708cc9",
    "predictive information": "p8959df92b85e",
}


def ids(*handles: str) -> frozenset[str]:
    return frozenset(PAPERS[h] for h in handles)


FEDERATED = ids("FOCUS", "FedASK", "FedLEASE", "RoLoRA")
FEDERATED_LORA = ids("FedASK", "FedLEASE", "RoLoRA")

# Papers a reader keeps in one topic.
GROUPS: dict[str, frozenset[str]] = {
    "federated learning": FEDERATED,
    "preference optimisation / RLHF": ids("QRPO", "SE-POPO"),
    "KV cache": ids("AnDPro", "NSNQuant"),
    "neuroscience": ids("low-rank RNNs", "fly olfaction", "NCE"),
}


@dataclass(frozen=True)
class Expected:
    """A named topic as a reader would fill it: `required` must join, `allowed` may."""

    required: frozenset[str]
    allowed: frozenset[str]


THEORY = ids(
    "in-context approximation",
    "stochastic block model",
    "low-rank gradients",
    "bandit inference",
    "SVUCRL",
    "federated RL regret",
)
NAMED: dict[str, Expected] = {
    "LoRA / PEFT": Expected(ids("GoRA"), ids("GoRA", "RestoreLCC", "low-rank training") | FEDERATED_LORA),
    "federated learning": Expected(ids("FOCUS"), FEDERATED | ids("federated RL regret")),
    "RLHF": Expected(ids("QRPO", "SE-POPO"), ids("QRPO", "SE-POPO", "POCCO")),
    "KV cache": Expected(ids("AnDPro", "NSNQuant"), ids("AnDPro", "NSNQuant")),
    "learning theory": Expected(THEORY, THEORY | ids("predictive information")),
}
