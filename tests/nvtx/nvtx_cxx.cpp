// nvtx_cxx.cpp -- a C++ program annotated with NVTX3's C++ API only
// (nvtx3.hpp: scoped_range_in<domain>, mark_in, unique_range_in, registered
// strings, named categories, colors, payloads), linked with the
// amalgamation: gpuinst collects it through NVTX's static route, with no
// environment variable.  gpuinst's API is used for init and finalize only.
#include "gpuinst.h"
#include "nvtx3/nvtx3.hpp"

#include <cstdio>

struct app_domain {
    static constexpr char const *name{"cxxapp"};
};
struct msg_solve {
    static constexpr char const *message{"solve"};
};
struct cat_io {
    static constexpr char const *name{"io"};
    static constexpr uint32_t id{11};
};

int main()
{
    // made before gpuinst_init, used after (static locals of nvtx3.hpp)
    auto &solve = nvtx3::registered_string_in<app_domain>::get<msg_solve>();
    if (gpuinst_init() != GPUINST_SUCCESS) return 1;
    for (int i = 0; i < 4; i++) {
        nvtx3::scoped_range_in<app_domain> r{solve, nvtx3::named_category_in<app_domain>::get<cat_io>(),
                                              nvtx3::rgb{255, 0, 0}, nvtx3::payload{static_cast<int64_t>(i)}};
        nvtx3::mark_in<app_domain>(nvtx3::message{"tick"}, nvtx3::payload{0.5 * i});
        {
            nvtx3::scoped_range inner{"inner"}; // the global (default) domain
        }
    }
    {
        nvtx3::unique_range_in<app_domain> u{"unique"};
    }
    if (gpuinst_finalize() != GPUINST_SUCCESS) return 1;
    std::printf("done\n");
    return 0;
}
