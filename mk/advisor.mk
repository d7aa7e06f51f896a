# The advisor's unit tests share a fixture builder (a header in tests/unit,
# which the generic test rule does not track): rebuild them when it changes.
ADVISOR_TEST_BINS := $(filter $(OUTPUT)/tests/unit/advisor/test_advisor_%,$(UNIT_BINS))
$(ADVISOR_TEST_BINS): tests/unit/advisor/advisor_fixture.h
