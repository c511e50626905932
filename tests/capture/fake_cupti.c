/*
 * tests/capture/fake_cupti.c: a stand-in libcupti.so.13 with just what
 * libtixcap.so calls, so the injection library's own machinery (subscribe,
 * buffer callbacks, flush and writer threads, atexit, END chunk) runs
 * without a GPU.  Each cuptiActivityFlushAll hands back one buffer holding
 * the fabricated story (capture_test.h), up to three times.
 * Owner: cupti_capture.  Loaded through LD_LIBRARY_PATH by test_inject_fake.
 */
#define CAPTURE_TEST_CUPTI
#define CAPTURE_TEST_NO_JOURNAL
#include "tests/capture/capture_test.h"

#include <pthread.h>

static CUpti_BuffersCallbackRequestFunc req;
static CUpti_BuffersCallbackCompleteFunc done;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int handed;

#define OK return CUPTI_SUCCESS
CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc f, void *u,
                              CUpti_SubscriberParams *p) { *s = (CUpti_SubscriberHandle)1; OK; }
CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s) { OK; }
CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t) { OK; }
CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute a, size_t *s, void *v) { OK; }
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
                                           CUpti_BuffersCallbackCompleteFunc d)
{
	req = r;
	done = d;
	OK;
}
CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) { OK; }
CUptiResult cuptiActivityDisable(CUpti_ActivityKind k) { OK; }
CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId c, uint8_t e) { OK; }
CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId c, uint8_t e) { OK; }
CUptiResult cuptiEnableCallback(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
                                CUpti_CallbackId c) { OK; }
CUptiResult cuptiEnableDomain(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d) { OK; }
CUptiResult cuptiGetGraphNodeId(CUgraphNode n, uint64_t *id) { *id = 1; OK; }
CUptiResult cuptiGetGraphId(CUgraph g, uint32_t *id) { *id = 1; OK; }
CUptiResult cuptiGetVersion(uint32_t *v) { *v = CUPTI_API_VERSION; OK; }
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n) { *n = 0; OK; }
CUptiResult cuptiGetResultString(CUptiResult r, const char **s) { *s = "FAKE"; OK; }
CUptiResult cuptiGetTimestamp(uint64_t *t) { *t = (uint64_t)STORY_T0; OK; }
CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
	*name = cbid == 211 ? "cudaLaunchKernel_v7000" : "cudaSomething_v1";
	OK;
}

static size_t rec_size(CUpti_ActivityKind k)
{
	switch (k) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_MARKER: return sizeof(CUpti_ActivityMarker2);
	case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
	case CUPTI_ACTIVITY_KIND_NAME: return sizeof(CUpti_ActivityName);
	case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
	default: return 0;
	}
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
	uint8_t *p = *rec ? (uint8_t *)*rec + ((rec_size((*rec)->kind) + 7) & ~(size_t)7) : buf;
	if (p >= buf + valid || rec_size(((CUpti_Activity *)p)->kind) == 0)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (CUpti_Activity *)p;
	OK;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	pthread_mutex_lock(&mu);
	int mine = handed < 3 ? ++handed : 0;
	pthread_mutex_unlock(&mu);
	if (!mine || !req)
		OK;
	uint8_t *b = NULL;
	size_t size = 0, max = 0;
	req(&b, &size, &max);
	struct fab f = {0};
	fab_story(&f);
	if (b && f.len <= size) {
		memcpy(b, f.p, f.len);
		done(NULL, 0, b, size, f.len);
	}
	free(f.p);
	OK;
}
