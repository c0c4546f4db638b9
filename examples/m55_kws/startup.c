/*
 * startup.c — reset and faults for the AN547 (Cortex-M55, linker.ld) and the
 * AN386 (Cortex-M4F, linker_an386.ld).
 *
 * Reset_Handler does what every bare-metal start-up must before main:
 * enable the FPU and MVE (CP10/CP11) since the compiler may use them, copy
 * .data from its load address to its run address, and zero .bss.  The
 * module's arenas are NOLOAD and need neither.  A fault prints a line and
 * ends the run with status 3.
 */
#include "board.h"

#include <stdint.h>

extern uint32_t __data_start__, __data_end__, __data_load__;
extern uint32_t __bss_start__, __bss_end__, __stack_top;
int main(void);
void Reset_Handler(void);
void Fault_Handler(void);

#define CPACR (*(volatile uint32_t *)0xE000ED88u)

void Reset_Handler(void) {
  CPACR |= 0xFu << 20; /* CP10, CP11: full access */
  __asm volatile("dsb\n\tisb" ::: "memory");
  const uint32_t *src = &__data_load__;
  for (uint32_t *p = &__data_start__; p < &__data_end__; p++) *p = *src++;
  for (uint32_t *p = &__bss_start__; p < &__bss_end__; p++) *p = 0;
  board_exit(main());
}

void Fault_Handler(void) {
  board_puts("fault");
  board_exit(3);
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
    Fault_Handler, /* SecureFault (reserved on the M4) */
    0,
    0,
    0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    Fault_Handler, /* SysTick */
};
