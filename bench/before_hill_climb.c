/*
 * before_hill_climb.c — the driver behind bench/before.md: the previous
 * hill_climb (commit de8009a) on the hard instances of tools/bench.c.  Not
 * built by the Makefile; to re-run it:
 *   git archive de8009a | tar -x -C /tmp/old && cd /tmp/old &&
 *   make build/release/libmemplan.a &&
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc \
 *     /path/to/bench/before_hill_climb.c build/release/libmemplan.a \
 *     -ljansson -lyaml -lm -o before && ./before
 */
#include "hardgen.h"
#include "memplan.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now_s(void){struct timespec ts;clock_gettime(CLOCK_MONOTONIC,&ts);return ts.tv_sec+ts.tv_nsec*1e-9;}
static int cmpd(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return (x>y)-(x<y);}
static double q(double*v,size_t n,double p){qsort(v,n,sizeof*v,cmpd);return v[(size_t)(p*(double)(n-1)+0.5)];}
int main(void){
  const long its[3]={2000,20000,20000}; const long stall[3]={-1,-1,0};
  const char*label[3]={"hill_climb (previous), defaults","hill_climb (previous) 10x","hill_climb (previous) 10x, max_stall_iterations 0"};
  const char*budget[3]={"iterations 2000, max_stall_iterations 500","iterations 20000, max_stall_iterations 500","iterations 20000, no stall limit"};
  for(int c=0;c<3;c++){
    unsigned at=0; double over=0,omax=0,secs[40]; unsigned long long moves=0;
    for(unsigned k=0;k<40;k++){
      unsigned n=100+(unsigned)(400ull*k/39);
      mp_hardgen_params hp={n,1u<<20,4*n,16,1000003u+k};
      mp_item*it=calloc(n,sizeof*it); uint64_t*off=calloc(n,8);
      mp_hardgen_make(&hp,it,NULL,NULL);
      mp_problem p={n,it,0};
      char k1[]="iterations",k2[]="max_stall_iterations";
      mp_option o[2]={{k1,its[c]},{k2,stall[c]}};
      mp_solution s={.offsets=off};
      double t0=now_s();
      mp_solve(mp_planner_find("hill_climb"),&p,o,stall[c]>=0?2:1,&s,NULL);
      secs[k]=now_s()-t0;
      double ov=(double)s.height/(1u<<20)-1; over+=ov; if(ov>omax)omax=ov; at+=s.height==(1u<<20); moves+=s.iterations;
      free(it);free(off);
    }
    printf("| %s | %s | %u / 40 (%.0f %%) | %.2f %% | %.2f %% | %.3f | %.3f | %.3f | %llu |\n",label[c],budget[c],at,100.0*at/40,100*over/40,100*omax,q(secs,40,.5),q(secs,40,.9),q(secs,40,1),moves/40);
  }
}
