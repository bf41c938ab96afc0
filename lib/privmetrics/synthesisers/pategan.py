"""PATE-GAN (Jordon, Yoon and van der Schaar, ICLR 2019): a GAN whose discriminator only sees
noisy teacher votes, with a moments accountant that stops training when the budget is spent.

Algorithm 1 of Jordon et al. on the discretised table (:mod:`.discretise`, the same declared
public-domain binning as PrivBayes), each column a one-hot block; the generator ends in a hard Gumbel-softmax per
block, so generated rows are one-hot like the real ones:

* the real rows are split into ``n_teachers`` disjoint partitions; teacher t is a logistic
  regression trained on its partition (label 1) against generated rows (label 0);
* each iteration, a batch of generated rows is labelled by the noisy teacher vote
  ``argmax(n0 + Lap(1/lam), n1 + Lap(1/lam))`` (PATE aggregation); the *student* discriminator is
  trained on generated rows and their labels only, and the generator is trained against it;
* every answered vote is charged to the moments accountant (:class:`.accounting.MomentsAccountant`,
  orders 1..200) with delta = 1/(n sqrt(n)) (the paper's code, footnote 14). Before a batch is
  answered we compute the epsilon it *would* bring; if that exceeds the target, training stops and
  the batch is not answered, so the spent epsilon never exceeds the target.

Why the paper's PATE-GAN ignored epsilon (Section 7.2): the synthcity plugin it used has 10
teachers and lam = 1e-3, i.e. Laplace noise of scale 1000 on vote counts of at most 10. Every
label is then a coin flip (``label_agreement_`` about 0.5), so the student learns nothing from the
labels and the output cannot depend on epsilon. ``lam=1e-3, n_teachers=10`` reproduces that.

What we change, each measured in ``make epsilon-response`` and the tests:

* many teachers (default one per 10 rows, 10 to 2,500) and ``lam = 10 / n_teachers``: the vote
  margin is large against the noise, labels are informative, and the accountant's data-dependent
  bound makes consensus votes cheap, so the budget (through the number of answered votes, hence
  of training iterations) decides how far the generator gets;
* a *relative* vote: teacher t votes "real" for a generated row when its logit is above the
  teacher's median logit over the batch. With absolute votes every teacher rejects every
  generated row early on, all labels are 0 and the student has nothing to learn (we saw the
  generator collapse). The privacy analysis is unchanged: a teacher's votes are a function of its
  own partition and of public generated rows, and one changed record still moves one teacher;
* the student is trained on the last ten answered batches (reusing answered queries is free),
  the teachers take ``teacher_steps`` steps per iteration, and the generator's learning rate
  (1e-4) is a hundredth of the teachers' and the student's (1e-2): the balance under which the
  non-private version of this loop converged on our data.

**What epsilon covers.** Neighbouring tables differ in one record, which lies in one teacher's
partition. Public, outside the budget: the schema, n (it sets delta and the teacher count), the
columns' declared domains (:mod:`.discretise`), the hyper-parameters and every generated row. The
accountant counts every answered vote batch (the only place the teachers, hence the private rows,
reach the student and the generator); delta = 1/(n sqrt(n)) unless given. With ``domain="dp"`` a
share ``domain_share`` of epsilon first buys undeclared numerical bounds (pure DP) and the
accountant gets the rest; the total is (epsilon, delta)-DP by sequential composition.
Data-independent: the generator's initialisation, the Gumbel draws, the partitioning (a seeded
permutation of row positions) and decoding. With ``domain="data"`` none of this holds.
"""

from __future__ import annotations

import warnings

import numpy as np

from privmetrics.data.validation import InvalidInputError, check_count, check_positive
from privmetrics.synthesisers.accounting import MomentsAccountant, check_epsilon
from privmetrics.synthesisers.base import Synthesiser, register_synthesiser
from privmetrics.synthesisers.discretise import (
    Discretiser,
    check_domain_source,
    resolve_domain,
)
from privmetrics.synthesisers.privbayes import check_share

MIN_ROWS_PER_TEACHER = 5
FEW_ITERATIONS = 10  # fewer trained iterations than this earn a warning


class FewIterationsWarning(UserWarning):
    """PATE-GAN's privacy budget stopped its training almost at once."""


@register_synthesiser("pategan")
class PATEGAN(Synthesiser):
    def __init__(
        self,
        epsilon: float = 1.0,
        seed: int = 0,
        delta: float | None = None,
        n_teachers: int | None = None,
        lam: float | None = None,
        max_iterations: int = 1000,
        bins: int = 20,
        batch_size: int = 64,
        teacher_batch: int = 32,
        teacher_steps: int = 3,
        noise_dim: int = 32,
        hidden: int = 128,
        domain: str = "declared",
        domain_share: float = 0.1,
    ):
        super().__init__(seed)
        self.domain = check_domain_source(domain)
        self.domain_share = check_share(domain_share)
        self.epsilon = check_epsilon(epsilon)
        if delta is not None and not 0 < check_positive("delta", delta) < 1:
            raise InvalidInputError(f"delta must lie in (0, 1), got {delta!r}")
        self.delta = delta
        self.n_teachers = None if n_teachers is None else check_count("n_teachers", n_teachers)
        # lam: the inverse Laplace noise scale of the votes
        self.lam = None if lam is None else check_positive("lam", lam)
        self.max_iterations = check_count("max_iterations", max_iterations, minimum=0)
        self.bins = check_count("bins", bins, minimum=2)
        self.batch_size = check_count("batch_size", batch_size)
        self.teacher_batch = check_count("teacher_batch", teacher_batch)
        self.teacher_steps = check_count("teacher_steps", teacher_steps)
        self.noise_dim, self.hidden = (
            check_count("noise_dim", noise_dim),
            check_count("hidden", hidden),
        )

    @property
    def min_rows(self) -> int:
        """Five rows per teacher; the default teacher count is at least 10."""
        return MIN_ROWS_PER_TEACHER * (self.n_teachers if self.n_teachers is not None else 10)

    @property
    def min_rows_reason(self) -> str:
        teachers = self.n_teachers if self.n_teachers is not None else "at least 10"
        return (
            f" ({MIN_ROWS_PER_TEACHER} rows per teacher, {teachers} teachers: lower n_teachers "
            "or give more rows)"
        )

    def _teachers(self, n: int) -> int:
        """Default: one teacher per 10 rows, between 10 and 2,500. ``fit`` has already checked
        ``min_rows``, so every teacher gets at least ``MIN_ROWS_PER_TEACHER`` rows."""
        return self.n_teachers if self.n_teachers is not None else int(np.clip(n // 10, 10, 2500))

    def _fit(self, frame):
        import torch
        from torch import nn

        n = len(frame)
        self.n_teachers_ = n_teachers = self._teachers(n)
        self.lam_ = self.lam if self.lam is not None else 10 / n_teachers
        self.delta_ = self.delta if self.delta is not None else 1 / (n * np.sqrt(n))
        rng = self._rng(0)
        torch.manual_seed(self.seed)  # weight initialisation and Gumbel draws
        gen = torch.Generator().manual_seed(self.seed)

        domain, self.domain_epsilon_ = resolve_domain(
            self.schema_, frame, self.domain, self.epsilon * self.domain_share, self._rng(2),
            "PATE-GAN",
        )  # fmt: skip
        budget = self.epsilon - self.domain_epsilon_  # what the moments accountant may spend
        self.discretiser_ = Discretiser(self.schema_, domain, self.bins)
        self.offsets_ = np.concatenate([[0], np.cumsum(self.discretiser_.cardinalities)])
        # a real row's one-hot positions: a teacher's logit is the sum of its weights there
        positions = torch.from_numpy(self.discretiser_.encode(frame) + self.offsets_[:-1])
        width = int(self.offsets_[-1])
        per = n // n_teachers  # the n mod n_teachers left-over rows are not used
        partitions = torch.from_numpy(
            rng.permutation(n)[: per * n_teachers].reshape(n_teachers, per)
        )

        self.generator_ = nn.Sequential(
            nn.Linear(self.noise_dim, self.hidden), nn.ReLU(),
            nn.Linear(self.hidden, self.hidden), nn.ReLU(),
            nn.Linear(self.hidden, width),
        )  # fmt: skip
        student = nn.Sequential(
            nn.Linear(width, self.hidden), nn.LeakyReLU(0.2), nn.Linear(self.hidden, 1)
        )
        teacher_w = nn.Parameter(torch.zeros(n_teachers, width))  # one logistic regression each
        teacher_b = nn.Parameter(torch.zeros(n_teachers, 1))
        opt_g = torch.optim.Adam(self.generator_.parameters(), lr=1e-4)
        opt_s = torch.optim.Adam(student.parameters(), lr=1e-2)
        opt_t = torch.optim.Adam([teacher_w, teacher_b], lr=1e-2)
        bce = nn.functional.binary_cross_entropy_with_logits
        target = torch.cat(
            [
                torch.ones(n_teachers, self.teacher_batch),
                torch.zeros(n_teachers, self.teacher_batch),
            ],
            1,
        )

        self.accountant_ = MomentsAccountant(self.lam_, self.delta_, max_order=200)
        self.stop_reason_, self.iterations_, self.vote_gaps_ = "max_iterations", 0, []
        agree = 0
        recent_x, recent_y = [], []  # answered queries: reusing them costs no privacy
        for _ in range(self.max_iterations):
            # 1. teachers: own partition (label 1) against fresh generated rows (label 0)
            for _ in range(self.teacher_steps):
                pick = torch.randint(per, (n_teachers, self.teacher_batch), generator=gen)
                real = positions[torch.gather(partitions, 1, pick)].view(n_teachers, -1)
                with torch.no_grad():
                    fake = self._generate(self.teacher_batch, gen)  # public: one batch for all
                logits = (
                    torch.cat(
                        [real_logits(teacher_w, real, self.teacher_batch), teacher_w @ fake.T], 1
                    )
                    + teacher_b
                )
                opt_t.zero_grad()
                bce(logits, target).backward()
                opt_t.step()
            # 2. noisy teacher votes on a generated batch, charged to the accountant first
            with torch.no_grad():
                fake = self._generate(self.batch_size, gen)
                scores = fake @ teacher_w.T + teacher_b.T
                n1 = (scores > scores.median(0).values).sum(1).numpy()
            n0 = n_teachers - n1
            gap = np.abs(n1 - n0)
            self.refused_epsilon_ = self.accountant_.epsilon_after(gap)
            if self.refused_epsilon_ > budget:
                self.stop_reason_ = "budget"  # this batch is not answered
                break
            self.accountant_.answer(gap)
            self.vote_gaps_.append(float(gap.mean()))
            noise = rng.laplace(0, 1 / self.lam_, size=(2, len(gap)))
            noisy = n1 + noise[1] > n0 + noise[0]
            agree += int((noisy == (n1 > n0)).sum())
            labels = torch.from_numpy(noisy.astype(np.float32))
            # 3. student on the last ten labelled batches, then the generator against the student
            recent_x, recent_y = [*recent_x[-9:], fake], [*recent_y[-9:], labels]
            for _ in range(3):
                opt_s.zero_grad()
                bce(student(torch.cat(recent_x)).squeeze(1), torch.cat(recent_y)).backward()
                opt_s.step()
            opt_g.zero_grad()
            out = student(self._generate(self.batch_size, gen)).squeeze(1)
            bce(out, torch.ones_like(out)).backward()
            opt_g.step()
            self.iterations_ += 1
        self.epsilon_spent_ = self.domain_epsilon_ + (
            self.accountant_.epsilon if self.accountant_.queries else 0.0
        )
        if self.iterations_ < FEW_ITERATIONS and self.max_iterations >= FEW_ITERATIONS:
            warnings.warn(
                f"PATE-GAN trained only {self.iterations_} iteration(s) at epsilon {self.epsilon:g} "
                f"on {n} rows ({self.stop_reason_}): the budget allows no more, so the output is "
                "close to the untrained generator's; more rows or a larger epsilon train longer",
                FewIterationsWarning,
                stacklevel=3,
            )
        # share of noisy labels equal to the noiseless teacher majority: 0.5 means pure noise
        self.label_agreement_ = (
            agree / self.accountant_.queries if self.accountant_.queries else np.nan
        )

    def _generate(self, n: int, gen):
        """Generated rows as one-hot blocks (hard Gumbel-softmax with straight-through gradients)."""
        import torch
        from torch.nn.functional import gumbel_softmax

        raw = self.generator_(torch.randn(n, self.noise_dim, generator=gen))
        o = self.offsets_
        return torch.cat(
            [
                gumbel_softmax(raw[:, o[j] : o[j + 1]], tau=0.5, hard=True)
                for j in range(len(o) - 1)
            ],
            1,
        )

    def _sample(self, n):
        import torch

        n = n if n is not None else 100
        torch.manual_seed(self.seed + 1)
        with torch.no_grad():
            x = self._generate(n, torch.Generator().manual_seed(self.seed + 1)).numpy()
        o = self.offsets_
        codes = np.stack([x[:, o[j] : o[j + 1]].argmax(1) for j in range(len(o) - 1)], 1)
        return self.discretiser_.decode(codes, self._rng(1))


def real_logits(weights, positions, batch: int):
    """Teacher logits (bias excluded) of one-hot rows given by their one-hot positions.

    ``weights`` (T, width), ``positions`` (T, batch * d) -> (T, batch): the sum of each teacher's
    weights at the row's d positions, i.e. weights @ one_hot(row) without building the one-hot rows.
    """
    import torch

    return torch.gather(weights, 1, positions).view(weights.shape[0], batch, -1).sum(2)
