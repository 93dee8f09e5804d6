"""The name saved models know the KL policy by: ``agents.kl_ppo.KLPolicy``.

Models trained before ``agents/`` had subpackages (``agents/models/*.zip``) pickle this class path;
the policy lives in ``agents.train.kl_ppo``.
"""

from agents.train.kl_ppo import HUGE_NEG, KLAnneal, KLPolicy, LeanPolicy

__all__ = ["HUGE_NEG", "KLAnneal", "KLPolicy", "LeanPolicy"]
