/*
 * startup.c — reset and fault handling for the emit proof on QEMU's
 * mps3-an547 (Cortex-M55), with an547.ld.
 *
 * The vector table sits at the start of ITCM, where the core boots; the
 * reset handler enables the FPU/MVE coprocessors (the compiler may
 * vectorise), zeroes .bss and calls main.  A fault prints its registers
 * through semihosting and exits with status 3: a crash can never pass.
 * SysTick's handler counts wraps of the 24-bit counter (systick_wraps):
 * the golden run's clock (target_main.c), which only the golden images
 * start.
 */
#include "semihost.h"

#include <stdint.h>
#include <stdio.h>

extern uint32_t __bss_start__, __bss_end__, __stack_top;
int main(void);
void Reset_Handler(void);
void Fault_Handler(void);
void SysTick_Handler(void);

volatile uint32_t systick_wraps;

void SysTick_Handler(void) { systick_wraps++; }

#define CPACR (*(volatile uint32_t *)0xE000ED88u)
#define CFSR (*(volatile uint32_t *)0xE000ED28u)
#define HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define BFAR (*(volatile uint32_t *)0xE000ED38u)
#define MMFAR (*(volatile uint32_t *)0xE000ED34u)

void Reset_Handler(void) {
  CPACR |= 0xFu << 20; /* CP10, CP11: full access */
  __asm volatile("dsb\n\tisb" ::: "memory");
  for (uint32_t *p = &__bss_start__; p < &__bss_end__; p++) *p = 0;
  semihost_exit(main());
}

void Fault_Handler(void) {
  char line[160];
  snprintf(line, sizeof line, "FAULT: CFSR 0x%08lx HFSR 0x%08lx BFAR 0x%08lx MMFAR 0x%08lx",
           (unsigned long)CFSR, (unsigned long)HFSR, (unsigned long)BFAR, (unsigned long)MMFAR);
  semihost_puts(line);
  semihost_exit(3);
}

typedef void (*vector)(void);

__attribute__((section(".vectors"), used)) const vector vectors[16] = {
    (vector)(uintptr_t)&__stack_top,
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    Fault_Handler, /* SecureFault */
    0, 0, 0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    SysTick_Handler,
};
