/* test_conf_prio.c — the priority keys (conf_prio.c): Slurm's defaults, every
 * key read, times to the second, PriorityFlags' names and implications,
 * TRES weights with units, a partition's TRESBillingWeights (live too),
 * the checks that need several keys, and each refusal with its file:line.
 * The texts stay in `scontrol show config`'s list as before. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf_fixture.h"

#include "common/conf.h"

#define CTLD "SlurmctldHost=head\n"

static const char *other(const struct drv_conf *c, const char *key)
{
	for (size_t i = 0; i < c->n_other; i++)
		if (!strcmp(c->other[i].key, key))
			return c->other[i].value;
	return NULL;
}

static void test_defaults(void **state)
{
	struct drv_conf *c = load_ok(*state, CTLD);
	const struct drv_prio_conf *p = &c->prio;
	assert_false(p->multifactor); /* priority/basic */
	assert_int_equal(p->weight_age + p->weight_assoc + p->weight_fairshare +
			     p->weight_job_size + p->weight_partition + p->weight_qos,
			 0);
	assert_false(p->weight_tres.set);
	assert_int_equal(p->max_age, 7 * 86400);
	assert_int_equal(p->decay_half_life, 7 * 86400);
	assert_int_equal(p->calc_period, 300);
	assert_int_equal(p->reset_period, DRV_PRIO_RESET_NONE);
	assert_false(p->favor_small);
	assert_int_equal(p->flags, 0);	       /* Fair Tree */
	assert_null(other(c, "PriorityType")); /* not shown unless written */
	assert_false(c->parts == NULL && c->n_parts);
	drv_conf_free(c);
}

static void test_every_key(void **state)
{
	struct drv_conf *c = load_ok(
	    *state, CTLD "PriorityType=priority/multifactor\n"
			 "PriorityWeightAge=1000\nPriorityWeightAssoc=2\n"
			 "PriorityWeightFairshare=4294967295\nPriorityWeightJobSize=3\n"
			 "PriorityWeightPartition=4\nPriorityWeightQOS=5\n"
			 "PriorityWeightTRES=CPU=1000,Mem=2000G,GRES/gpu=3000\n"
			 "PriorityMaxAge=1-0\nPriorityDecayHalfLife=0:30\n"
			 "PriorityCalcPeriod=2\nPriorityUsageResetPeriod=QUARTERLY\n"
			 "PriorityFavorSmall=YES\n"
			 "PriorityFlags=small_relative_to_time,CALCULATE_RUNNING,"
			 "NO_FAIR_TREE,ACCRUE_ALWAYS\n");
	const struct drv_prio_conf *p = &c->prio;
	assert_true(p->multifactor);
	assert_int_equal(p->weight_age, 1000);
	assert_int_equal(p->weight_assoc, 2);
	assert_int_equal(p->weight_fairshare, 4294967295u);
	assert_int_equal(p->weight_job_size, 3);
	assert_int_equal(p->weight_partition, 4);
	assert_int_equal(p->weight_qos, 5);
	assert_true(p->weight_tres.set);
	assert_true(p->weight_tres.w[DRV_TRES_CPU] == 1000.0);
	assert_true(p->weight_tres.w[DRV_TRES_MEM] == 2000.0 / 1024); /* per MiB */
	assert_true(p->weight_tres.w[DRV_TRES_GPU] == 3000.0);
	assert_string_equal(p->weight_tres.text, "CPU=1000,Mem=2000G,GRES/gpu=3000");
	assert_int_equal(p->max_age, 86400);
	assert_int_equal(p->decay_half_life, 30); /* seconds: Drover's syntax */
	assert_int_equal(p->calc_period, 120);	  /* "2": two minutes, as Slurm */
	assert_int_equal(p->reset_period, DRV_PRIO_RESET_QUARTERLY);
	assert_true(p->favor_small);
	assert_int_equal(p->flags, DRV_PRIO_SMALL_RELATIVE_TO_TIME |
				       DRV_PRIO_CALCULATE_RUNNING |
				       DRV_PRIO_NO_FAIR_TREE | DRV_PRIO_ACCRUE_ALWAYS);
	/* kept as written for scontrol show config */
	assert_string_equal(other(c, "PriorityType"), "priority/multifactor");
	assert_string_equal(other(c, "PriorityDecayHalfLife"), "0:30");
	drv_conf_free(c);
	c = load_ok(*state,
		    CTLD "PriorityFlags=DEPTH_OBLIVIOUS\n"
			 "PriorityDecayHalfLife=0\nPriorityUsageResetPeriod=NOW\n");
	assert_true(c->prio.flags & DRV_PRIO_NO_FAIR_TREE); /* implied */
	assert_int_equal(c->prio.decay_half_life, 0);
	assert_true(c->prio.reset_given);
	drv_conf_free(c);
}

static void test_billing_weights(void **state)
{
	struct drv_conf *c = load_ok(
	    *state, CTLD "NodeName=n1 CPUs=4\n"
			 "PartitionName=DEFAULT TRESBillingWeights=CPU=2\n"
			 "PartitionName=a Nodes=n1\n"
			 "PartitionName=b Nodes=n1 TRESBillingWeights=CPU=1.0,Mem=0.25G,"
			 "GRES/gpu=2.0,Node=-1\n");
	const struct drv_tres_weights *a = &c->parts[0].billing_weights;
	const struct drv_tres_weights *b = &c->parts[1].billing_weights;
	assert_true(a->set); /* from the DEFAULT line */
	assert_true(a->w[DRV_TRES_CPU] == 2.0);
	assert_true(b->w[DRV_TRES_CPU] == 1.0);
	assert_true(b->w[DRV_TRES_MEM] == 0.25 / 1024);
	assert_true(b->w[DRV_TRES_GPU] == 2.0);
	assert_true(b->w[DRV_TRES_NODE] == -1.0); /* negative allowed */
	/* live: scontrol update PartitionName= TRESBillingWeights= */
	struct drv_part_conf pc;
	struct drv_error err = {{0}};
	assert_int_equal(drv_part_conf_copy(&pc, &c->parts[1]), 0);
	assert_int_equal(drv_part_conf_set(&pc, "TRESBillingWeights", "cpu=3", &err), 0);
	assert_true(pc.billing_weights.w[DRV_TRES_CPU] == 3.0);
	assert_true(pc.billing_weights.w[DRV_TRES_MEM] == 0.0);
	assert_int_equal(drv_part_conf_set(&pc, "TRESBillingWeights", "cpu=x", &err),
			 -EINVAL);
	assert_string_equal(
	    err.text, "TRESBillingWeights: \"cpu=x\" is an invalid TRES weight entry");
	assert_true(pc.billing_weights.w[DRV_TRES_CPU] == 3.0); /* unchanged */
	drv_part_conf_fini(&pc);
	drv_conf_free(c);
}

static void test_refusals(void **state)
{
	struct fixture *f = *state;
	load_bad(f, CTLD "PriorityFlags=ACCRUE_ALWAYS,MAX_TRES\n", 2,
		 "PriorityFlags=ACCRUE_ALWAYS,MAX_TRES: Drover does not do what "
		 "MAX_TRES asks (docs/compat.md)");
	load_bad(f, CTLD "PriorityFlags=NO_NORMAL_ALL\n", 2,
		 "Drover does not do what NO_NORMAL_ALL asks");
	load_bad(f, CTLD "PriorityWeightAge=x\n", 2,
		 "PriorityWeightAge value (x) is not a valid number");
	load_bad(f, CTLD "PriorityWeightQOS=-1\n", 2,
		 "PriorityWeightQOS value (-1) is less than zero");
	load_bad(f, CTLD "PriorityWeightAge=4294967296\n", 2,
		 "PriorityWeightAge value (4294967296) is greater than 4294967295");
	load_bad(f, CTLD "PriorityType=priority/foo\n", 2,
		 "PriorityType: 'priority/foo' is not supported; Drover has "
		 "priority/basic and priority/multifactor");
	load_bad(f, CTLD "PriorityCalcPeriod=0\n", 2,
		 "Bad value \"0\" for PriorityCalcPeriod");
	load_bad(f, CTLD "PriorityMaxAge=soon\n", 2,
		 "Bad value \"soon\" for PriorityMaxAge");
	load_bad(f, CTLD "PriorityUsageResetPeriod=HOURLY\n", 2,
		 "Bad value \"HOURLY\" for PriorityUsageResetPeriod");
	load_bad(f, CTLD "PriorityFlags=CALCULATE_RUNNING,FAST\n", 2,
		 "PriorityFlags: 'FAST' is not a priority flag");
	load_bad(f, CTLD "PriorityFavorSmall=maybe\n", 2,
		 "PriorityFavorSmall: 'maybe' is not YES or NO");
	load_bad(f, CTLD "PriorityWeightTRES=CPU\n", 2,
		 "PriorityWeightTRES: \"CPU\" is an invalid TRES weight entry");
	load_bad(f, CTLD "PriorityWeightTRES=license/x=2\n", 2,
		 "TRES weight 'license/x' is not a configured TRES type.");
	load_bad(f, CTLD "PriorityWeightTRES=CPU=2Q\n", 2,
		 "Invalid unit type 'Q'. Possible options are 'KMGTP'");
	load_bad(f,
		 CTLD "NodeName=n1\nPartitionName=p Nodes=n1 TRESBillingWeights=CPU=x\n",
		 3, "TRESBillingWeights: \"CPU=x\" is an invalid TRES weight entry");
	/* Slurm's check: usage that never decays must be reset sometime */
	load_bad(f, CTLD "PriorityDecayHalfLife=0\n", 0,
		 "You have to either have PriorityDecayHalfLife != 0 or "
		 "PriorityUsageResetPeriod set to something");
}

static void test_weights_parser(void **state)
{
	struct drv_tres_weights w = {0}, before;
	struct drv_error err = {{0}};
	assert_int_equal(drv_tres_weights_parse("", &w, &err), 0);
	assert_false(w.set);
	assert_int_equal(drv_tres_weights_parse("cpu=1,mem=1,node=2K,billing=0.5,"
						"gres/gpu=1M,mem=4K",
						&w, &err),
			 0);
	assert_true(w.w[DRV_TRES_NODE] == 2.0 / 1024); /* counts: K is 1024 */
	assert_true(w.w[DRV_TRES_GPU] == 1.0 / (1024 * 1024));
	assert_true(w.w[DRV_TRES_MEM] == 4.0); /* below MiB: as written (Slurm) */
	assert_true(w.w[DRV_TRES_BILLING] == 0.5);
	before = w;
	assert_int_equal(drv_tres_weights_parse("cpu=1,,mem=2", &w, &err), -EINVAL);
	assert_string_equal(err.text, "\"\" is an invalid TRES weight entry");
	assert_int_equal(drv_tres_weights_parse("=1", &w, &err), -EINVAL);
	assert_int_equal(drv_tres_weights_parse("cpu= 1", &w, &err), -EINVAL);
	assert_int_equal(drv_tres_weights_parse("cpu=1GG", &w, &err), -EINVAL);
	assert_int_equal(drv_tres_weights_parse("cpu=nan", &w, &err), -EINVAL);
	assert_memory_equal(&w, &before, sizeof(w)); /* unchanged */
	char big[300];
	memset(big, 'c', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(drv_tres_weights_parse(big, &w, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_every_key, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_billing_weights, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	    cmocka_unit_test(test_weights_parser),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
